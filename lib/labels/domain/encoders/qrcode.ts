// QR Code's encoder, loaded only when a request asks for it (why: lib/labels/domain/encoder-modules.ts).
import { drawingSVG, qrcode } from 'bwip-js/generic';
import type { SvgEncoder } from '../encoder-modules.ts';

export const encodeSvg: SvgEncoder = (options) => qrcode(options, drawingSVG());
