// PDF417's encoder, loaded only when a request asks for it (why: lib/labels/domain/encoder-modules.ts).
import { drawingSVG, pdf417 } from 'bwip-js/generic';
import type { SvgEncoder } from '../encoder-modules.ts';

export const encodeSvg: SvgEncoder = (options) => pdf417(options, drawingSVG());
