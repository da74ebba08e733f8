import type { RenderOptions } from 'bwip-js/generic';
import type { BarcodeFormat } from './formats.ts';

/**
 * Each barcode format's bwip-js encoder is a module of its own in ./encoders/, imported the first
 * time a request asks for that format. bwip-js is most of the barcode function's code (~384 KB
 * minified for our ten formats) and a request needs one encoder, so the function's bundle holds
 * none of them: the deployed asset carries each encoder module built on its own, with just the
 * part of bwip-js that format uses, as `encoders/<name>.mjs` beside `index.mjs`
 * (infra/on-demand-modules.ts). A QR request loads the QR file and nothing else; a 304 loads none.
 * Each module imports its encoder by name from `bwip-js/generic`, never `toSVG`: `toSVG` looks the
 * encoder up by name among all ~130 BWIPP symbologies, which would bundle every one (~960 KB).
 *
 * The import takes a URL the bundler cannot follow (so it stays out of the bundle), relative to
 * this module: from source (`npm start`, tests) this file is lib/labels/domain/encoder-modules.ts
 * and loads ./encoders/<name>.ts; in the asset it is part of index.mjs and loads
 * ./encoders/<name>.mjs. Same relative path, the running file's own extension: so this file must
 * stay next to ./encoders/ (the asset mirrors that layout).
 */

export type SvgEncoder = (options: RenderOptions) => string;

interface EncoderModule {
  encodeSvg: SvgEncoder;
}

/** The module of ./encoders/ (file name without extension) that encodes each format. */
export const ENCODER_MODULES: Readonly<Record<BarcodeFormat, string>> = {
  qr: 'qrcode',
  datamatrix: 'datamatrix',
  'gs1-datamatrix': 'gs1datamatrix',
  aztec: 'azteccode',
  pdf417: 'pdf417',
  code128: 'code128',
  'gs1-128': 'gs1-128',
  ean13: 'ean13',
  upca: 'upca',
  code39: 'code39',
};

/** `.ts` when running from source, `.mjs` in the bundle. */
const RUNNING_EXTENSION = import.meta.url.slice(import.meta.url.lastIndexOf('.'));

const loaded = new Map<BarcodeFormat, Promise<SvgEncoder>>();

async function importEncoder(format: BarcodeFormat): Promise<SvgEncoder> {
  const url = new URL(`./encoders/${ENCODER_MODULES[format]}${RUNNING_EXTENSION}`, import.meta.url);
  // A computed specifier is typed `any`: every module in ./encoders/ exports `encodeSvg: SvgEncoder`.
  const module = (await import(url.href)) as EncoderModule;
  return module.encodeSvg;
}

/** The format's encoder, imported on first use; a failed import is retried by the next request. */
export function loadEncoder(format: BarcodeFormat): Promise<SvgEncoder> {
  let encoder = loaded.get(format);
  if (!encoder) {
    encoder = importEncoder(format);
    encoder.catch(() => loaded.delete(format));
    loaded.set(format, encoder);
  }
  return encoder;
}
