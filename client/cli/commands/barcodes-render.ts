import { writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { renderBarcode } from '../../barcodes/render-barcode.ts';
import type { BarcodeFormat } from '../../types.ts';
import { clientFor, GLOBAL_OPTIONS, positiveNumber, UsageError, type CliContext } from '../context.ts';

export const BARCODES_RENDER_USAGE = `barcodes render --type FORMAT --data TEXT --out FILE [--width-mm N] [--height-mm N] [--dpi N]
    Renders a barcode. FORMAT: qr (alias qrcode), datamatrix, code128, gs1-128, ean13, upca, code39, pdf417, aztec, gs1-datamatrix.
    The API answers SVG; an --out ending in .png is rasterised here at --dpi (default 300). --out - prints the SVG.`;

const FORMATS: readonly BarcodeFormat[] = ['qr', 'datamatrix', 'code128', 'gs1-128', 'ean13', 'upca', 'code39', 'pdf417', 'aztec', 'gs1-datamatrix'];
const ALIASES: Readonly<Record<string, BarcodeFormat>> = { qrcode: 'qr', 'qr-code': 'qr', 'data-matrix': 'datamatrix' };

export function barcodeFormatOf(name: string): BarcodeFormat {
  const format = ALIASES[name.toLowerCase()] ?? (name.toLowerCase() as BarcodeFormat);
  if (!FORMATS.includes(format)) throw new UsageError(`Unknown barcode type '${name}': use one of ${FORMATS.join(', ')}.`);
  return format;
}

/** `barcodes render` (docs/client.md#cli). */
export async function barcodesRender(args: string[], context: CliContext): Promise<number> {
  const { values } = parseArgs({
    args,
    strict: true,
    options: {
      ...GLOBAL_OPTIONS,
      type: { type: 'string', default: 'qr' },
      data: { type: 'string' },
      out: { type: 'string' },
      'width-mm': { type: 'string' },
      'height-mm': { type: 'string' },
      dpi: { type: 'string', default: '300' },
    },
  });
  if (values.data === undefined) throw new UsageError('--data is required: the text to encode.');
  if (values.out === undefined) throw new UsageError('--out is required: a .svg or .png file, or - for the SVG on stdout.');
  const format = barcodeFormatOf(values.type);
  const dpi = positiveNumber('--dpi', values.dpi);
  const client = clientFor(values, context);

  const svg = await renderBarcode(client, {
    payload: values.data,
    format,
    widthMm: values['width-mm'] === undefined ? undefined : positiveNumber('--width-mm', values['width-mm']),
    heightMm: values['height-mm'] === undefined ? undefined : positiveNumber('--height-mm', values['height-mm']),
    signal: context.signal,
  });
  if (values.out === '-') {
    context.stdout.write(svg);
    return 0;
  }
  const bytes = values.out.toLowerCase().endsWith('.png') ? await rasterise(svg, dpi) : Buffer.from(svg, 'utf8');
  await writeFile(values.out, bytes);
  context.stdout.write(`Wrote ${values.out} (${bytes.length} bytes, ${format})\n`);
  return 0;
}

/** PNG at `dpi` from the SVG (sized in millimetres); resvg is loaded only for PNG output. */
async function rasterise(svg: string, dpi: number): Promise<Buffer> {
  const { Resvg } = await import('@resvg/resvg-js');
  // resvg sizes the SVG at 96 px per inch; zoom to the wanted resolution.
  return new Resvg(svg, { fitTo: { mode: 'zoom', value: dpi / 96 }, background: 'white' }).render().asPng();
}
