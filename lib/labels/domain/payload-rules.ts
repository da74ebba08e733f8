import { PAYLOAD_MAX_LENGTH, type BarcodeFormat } from './formats.ts';
import { ValidationError } from '../../platform/core/errors.ts';

/**
 * Per-symbology payload rules (docs/api-guide.md "Labels"). Everything a caller can get wrong is reported as a
 * ValidationError on the `payload` query parameter, never as an unknown error:
 * - ean13: 12 digits (we append the check digit) or 13 digits with a correct check digit.
 * - upca: 11 digits (we append the check digit) or 12 digits with a correct check digit.
 * - code39: only its own character set, capitals A-Z, digits, space and - . $ / + %. Lowercase is
 *   refused rather than upper-cased, so the scanned value is always exactly what was sent.
 * - code128: printable ASCII (U+0020..U+007E) only. Non-ASCII is refused rather than encoded via
 *   FNC4/Latin-1, which few scanners transmit faithfully; use a 2D format for other text.
 * - gs1-128, gs1-datamatrix: bracketed AI element strings such as `(01)09501101530003(10)ABC`,
 *   checked by bwip-js (AI syntax, lengths, check digits, dates); its findings are mapped here.
 * - qr, datamatrix, pdf417, aztec: any well-formed Unicode text, encoded as UTF-8 bytes; a payload
 *   too large for the symbology's biggest symbol is refused.
 *
 * Character set of non-ASCII text: QR Code announces UTF-8 with an ECI 000026 designator (readers
 * otherwise guess between Latin-1, Shift_JIS and UTF-8). Data Matrix, PDF417 and Aztec carry the
 * plain UTF-8 bytes without ECI, as bwip-js does by default: zxing-js (also the decoder behind many
 * browser scanners) ignores ECI in those symbologies and in Aztec even mis-decodes the data after
 * it, while readers that guess the character set recognise UTF-8. ASCII payloads never get an ECI.
 */

export type PayloadErrorCode = 'invalid-format' | 'invalid-check-digit' | 'too-long';

export function invalidPayload(code: PayloadErrorCode, message: string): ValidationError {
  return new ValidationError([{ location: 'query', name: 'payload', code, message }]);
}

/** Text and extra bwip-js options that encode a validated payload. */
export interface EncodableText {
  text: string;
  parsefnc?: boolean;
}

const DIGITS = /^[0-9]+$/;
const CODE39_CHARACTERS = /^[0-9A-Z \-.$/+%]+$/;
const PRINTABLE_ASCII = /^[\x20-\x7e]+$/;
const NON_ASCII = /[\u0080-\uffff]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/** bwip-js `parsefnc` escape that makes the reader switch to UTF-8 (ECI 000026). */
const ECI_UTF8 = '^ECI000026';

/** GS1 mod-10 check digit over the digits that precede it (EAN-13, UPC-A, GTIN, SSCC...). */
export function gs1CheckDigit(digits: string): number {
  let sum = 0;
  for (let i = 0; i < digits.length; i += 1) {
    // Weights 3,1,3,1... counted from the rightmost digit.
    const weight = (digits.length - i) % 2 === 1 ? 3 : 1;
    sum += Number(digits[i]) * weight;
  }
  return (10 - (sum % 10)) % 10;
}

function gtin(payload: string, label: string, dataDigits: number): string {
  if (!DIGITS.test(payload)) {
    throw invalidPayload('invalid-format', `${label} takes digits only (0-9).`);
  }
  if (payload.length !== dataDigits && payload.length !== dataDigits + 1) {
    throw invalidPayload(
      'invalid-format',
      `${label} takes ${dataDigits} digits (the check digit is added) or ${dataDigits + 1} digits including a correct check digit; got ${payload.length}.`,
    );
  }
  const data = payload.slice(0, dataDigits);
  const expected = gs1CheckDigit(data);
  if (payload.length === dataDigits + 1 && Number(payload[dataDigits]) !== expected) {
    throw invalidPayload('invalid-check-digit', `${label} check digit is ${payload[dataDigits]} but must be ${expected}.`);
  }
  return `${data}${expected}`;
}

function code39(payload: string): string {
  if (CODE39_CHARACTERS.test(payload)) return payload;
  if (/[a-z]/.test(payload)) {
    throw invalidPayload('invalid-format', 'Code 39 has no lowercase letters; use capitals A-Z.');
  }
  throw invalidPayload('invalid-format', 'Code 39 takes only capitals A-Z, digits 0-9, space and - . $ / + %.');
}

function code128(payload: string): string {
  if (PRINTABLE_ASCII.test(payload)) return payload;
  throw invalidPayload('invalid-format', 'Code 128 takes printable ASCII characters only (space to ~); use qr, datamatrix, pdf417 or aztec for other text.');
}

function gs1(payload: string): string {
  if (!payload.startsWith('(')) {
    throw invalidPayload('invalid-format', 'GS1 element strings are written as bracketed AIs, e.g. (01)09501101530003(10)ABC123.');
  }
  return payload;
}

/** bwip-js encodes non-ASCII text as UTF-8 bytes by itself; `announceUtf8` adds the ECI. */
function anyText(payload: string, announceUtf8: boolean): EncodableText {
  if (!announceUtf8 || !NON_ASCII.test(payload)) return { text: payload };
  // With parsefnc on (needed for the ECI escape), a literal caret must be doubled.
  return { text: ECI_UTF8 + payload.replaceAll('^', '^^'), parsefnc: true };
}

/** Checks the payload against the format's rules and returns what to hand to bwip-js. */
export function toEncodableText(format: BarcodeFormat, payload: string): EncodableText {
  if (payload.length === 0) throw invalidPayload('invalid-format', 'Must not be empty.');
  if (payload.length > PAYLOAD_MAX_LENGTH) {
    throw invalidPayload('too-long', `Must be at most ${PAYLOAD_MAX_LENGTH} characters.`);
  }
  if (LONE_SURROGATE.test(payload)) throw invalidPayload('invalid-format', 'Must be well-formed Unicode text.');
  switch (format) {
    case 'ean13':
      return { text: gtin(payload, 'EAN-13', 12) };
    case 'upca':
      return { text: gtin(payload, 'UPC-A', 11) };
    case 'code39':
      return { text: code39(payload) };
    case 'code128':
      return { text: code128(payload) };
    case 'gs1-128':
    case 'gs1-datamatrix':
      return { text: gs1(payload) };
    case 'qr':
      return anyText(payload, true);
    case 'datamatrix':
    case 'pdf417':
    case 'aztec':
      return anyText(payload, false);
  }
}
