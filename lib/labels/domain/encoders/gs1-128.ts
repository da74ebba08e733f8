// GS1-128's encoder, loaded only when a request asks for it (why: lib/labels/domain/encoder-modules.ts).
import { drawingSVG, gs1_128 } from 'bwip-js/generic';
import type { SvgEncoder } from '../encoder-modules.ts';

export const encodeSvg: SvgEncoder = (options) => gs1_128(options, drawingSVG());
