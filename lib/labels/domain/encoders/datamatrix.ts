// Data Matrix's encoder, loaded only when a request asks for it (why: lib/labels/domain/encoder-modules.ts).
import { drawingSVG, datamatrix } from 'bwip-js/generic';
import type { SvgEncoder } from '../encoder-modules.ts';

export const encodeSvg: SvgEncoder = (options) => datamatrix(options, drawingSVG());
