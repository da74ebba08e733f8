// Code 39's encoder, loaded only when a request asks for it (why: lib/labels/domain/encoder-modules.ts).
import { drawingSVG, code39 } from 'bwip-js/generic';
import type { SvgEncoder } from '../encoder-modules.ts';

export const encodeSvg: SvgEncoder = (options) => code39(options, drawingSVG());
