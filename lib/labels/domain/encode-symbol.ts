import type { SvgEncoder } from './encoder-modules.ts';
import { invalidPayload, type EncodableText } from './payload-rules.ts';
import type { Symbology } from './symbologies.ts';

/** The bars/modules of one symbol as drawn by bwip-js, without quiet zone or background. */
export interface EncodedSymbol {
  /** SVG elements (black paths) in bwip-js units, origin at the symbol's top-left corner. */
  body: string;
  /** Width and height of the drawing in bwip-js units. */
  widthUnits: number;
  heightUnits: number;
}

const VIEW_BOX = /^<svg viewBox="0 0 (\d+) (\d+)" xmlns="http:\/\/www\.w3\.org\/2000\/svg">\n?/;
const BWIPP_ERROR = /^bwipp\.([A-Za-z0-9]+)#\d+: ([\s\S]*)$/;
const CAPACITY_ERROR = /too ?(long|large|much|big)|novalidsymbol|maximum length|exceeds/i;

/** Turns a bwip-js/BWIPP refusal into a ValidationError on `payload`; anything else is a bug and rethrown. */
function toValidationError(error: unknown, symbology: Symbology): unknown {
  const match = error instanceof Error ? BWIPP_ERROR.exec(error.message) : null;
  if (!match) return error;
  const [, name = '', detail = ''] = match;
  const reason = detail.trim().replace(/\.$/, '');
  if (name.startsWith('GS1')) {
    return invalidPayload(name === 'GS1badChecksum' ? 'invalid-check-digit' : 'invalid-format', `Not a valid GS1 element string: ${reason}.`);
  }
  if (CAPACITY_ERROR.test(name) || CAPACITY_ERROR.test(reason)) {
    return invalidPayload('too-long', `Too long to encode as ${symbology.label}.`);
  }
  return invalidPayload('invalid-format', `Cannot be encoded as ${symbology.label}: ${reason}.`);
}

/**
 * Encodes with the symbology's bwip-js encoder (lib/labels/domain/encoder-modules.ts) at scale 1
 * with no padding and no human-readable text (keeps the output font-free); quiet zone, background
 * and sizing are added by the caller.
 */
export function encodeSymbol(encode: SvgEncoder, symbology: Symbology, encodable: EncodableText): EncodedSymbol {
  let svg: string;
  try {
    svg = encode({
      bcid: symbology.bcid,
      text: encodable.text,
      scale: 1,
      padding: 0,
      includetext: false,
      ...(encodable.parsefnc ? { parsefnc: true } : {}),
    });
  } catch (error) {
    throw toValidationError(error, symbology);
  }
  const header = VIEW_BOX.exec(svg);
  const end = svg.lastIndexOf('</svg>');
  if (!header || end < 0) throw new Error(`Unexpected bwip-js SVG output for ${symbology.bcid}`);
  return {
    body: svg.slice(header[0].length, end).trim(),
    widthUnits: Number(header[1]),
    heightUnits: Number(header[2]),
  };
}
