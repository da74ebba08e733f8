import { describe, expect, it } from 'vitest';
import type { BarcodeFormat } from '../../../lib/labels/domain/formats.ts';
import { ValidationError } from '../../../lib/platform/core/errors.ts';
import { gs1CheckDigit, toEncodableText } from '../../../lib/labels/domain/payload-rules.ts';
import { renderBarcode } from '../../../lib/labels/domain/render-barcode.ts';

async function renderError(format: BarcodeFormat, payload: string): Promise<unknown> {
  try {
    await renderBarcode({ format, payload });
  } catch (error) {
    return error;
  }
  throw new Error(`expected ${format} "${payload.slice(0, 40)}" to be refused`);
}

describe('gs1CheckDigit', () => {
  it.each([
    ['590123412345', 7],
    ['400638133393', 1],
    ['03600029145', 2],
    ['01234567890', 5],
    ['0950110153000', 3],
    ['09501101530000000', 3],
  ])('%s → %i', (digits, expected) => {
    // Act
    const digit = gs1CheckDigit(digits);

    // Assess
    expect(digit).toBe(expected);
  });
});

describe('toEncodableText', () => {
  it.each<{ format: BarcodeFormat; payload: string; text: string; parsefnc?: boolean }>([
    { format: 'ean13', payload: '590123412345', text: '5901234123457' },
    { format: 'ean13', payload: '5901234123457', text: '5901234123457' },
    { format: 'upca', payload: '03600029145', text: '036000291452' },
    { format: 'upca', payload: '036000291452', text: '036000291452' },
    { format: 'code39', payload: 'ABC 1-2.$/+%', text: 'ABC 1-2.$/+%' },
    { format: 'code128', payload: 'a^b~ ', text: 'a^b~ ' },
    { format: 'qr', payload: 'plain ^ascii', text: 'plain ^ascii' },
    // Non-ASCII QR text is announced as UTF-8 (ECI 000026); a literal caret is escaped.
    { format: 'qr', payload: 'Süd ^1', text: '^ECI000026Süd ^^1', parsefnc: true },
    { format: 'datamatrix', payload: 'Süd ^1', text: 'Süd ^1' },
    { format: 'pdf417', payload: 'Süd', text: 'Süd' },
    { format: 'aztec', payload: 'Süd', text: 'Süd' },
  ])('$format "$payload" → "$text"', ({ format, payload, text, parsefnc }) => {
    // Act
    const encodable = toEncodableText(format, payload);

    // Assess
    expect(encodable).toEqual(parsefnc ? { text, parsefnc } : { text });
  });
});

describe('renderBarcode refuses payloads invalid for the symbology', () => {
  it.each<{ rule: string; format: BarcodeFormat; payload: string; code: string; message: RegExp }>([
    { rule: 'EAN-13 bad check digit', format: 'ean13', payload: '5901234123458', code: 'invalid-check-digit', message: /check digit is 8 but must be 7/ },
    { rule: 'EAN-13 letters', format: 'ean13', payload: '59012341234A', code: 'invalid-format', message: /digits only/ },
    { rule: 'EAN-13 too short', format: 'ean13', payload: '59012341234', code: 'invalid-format', message: /12 digits .* or 13 digits/ },
    { rule: 'EAN-13 too long', format: 'ean13', payload: '59012341234571', code: 'invalid-format', message: /got 14/ },
    { rule: 'EAN-13 with add-on', format: 'ean13', payload: '5901234123457 12', code: 'invalid-format', message: /digits only/ },
    { rule: 'EAN-13 full-width digits', format: 'ean13', payload: '５９０１２３４１２３４５', code: 'invalid-format', message: /digits only/ },
    { rule: 'UPC-A bad check digit', format: 'upca', payload: '036000291453', code: 'invalid-check-digit', message: /check digit is 3 but must be 2/ },
    { rule: 'UPC-A letters', format: 'upca', payload: '0360002914X', code: 'invalid-format', message: /digits only/ },
    { rule: 'UPC-A wrong length', format: 'upca', payload: '0360002914', code: 'invalid-format', message: /11 digits .* or 12 digits/ },
    { rule: 'Code 39 lowercase', format: 'code39', payload: 'abc-123', code: 'invalid-format', message: /lowercase/ },
    { rule: 'Code 39 star', format: 'code39', payload: 'ABC*123', code: 'invalid-format', message: /only capitals/ },
    { rule: 'Code 39 underscore', format: 'code39', payload: 'ABC_123', code: 'invalid-format', message: /only capitals/ },
    { rule: 'Code 39 non-ASCII', format: 'code39', payload: 'SÜD', code: 'invalid-format', message: /only capitals/ },
    { rule: 'Code 128 non-ASCII', format: 'code128', payload: 'Süd', code: 'invalid-format', message: /printable ASCII/ },
    { rule: 'Code 128 control character', format: 'code128', payload: 'A\tB', code: 'invalid-format', message: /printable ASCII/ },
    { rule: 'GS1-128 without brackets', format: 'gs1-128', payload: '0109501101530003', code: 'invalid-format', message: /bracketed AIs/ },
    { rule: 'GS1-128 missing open bracket', format: 'gs1-128', payload: '(01)09501101530003 17)260101', code: 'invalid-format', message: /GS1/ },
    { rule: 'GS1-128 bad check digit', format: 'gs1-128', payload: '(01)09501101530004', code: 'invalid-check-digit', message: /GS1 .*AI 01: Bad checksum/ },
    { rule: 'GS1-128 unknown AI', format: 'gs1-128', payload: '(9999)12', code: 'invalid-format', message: /GS1 .*AI 9999/ },
    { rule: 'GS1-128 GTIN too short', format: 'gs1-128', payload: '(01)0950110153000', code: 'invalid-format', message: /GS1 .*Too short/ },
    { rule: 'GS1-128 bad date', format: 'gs1-128', payload: '(01)09501101530003(17)261301', code: 'invalid-format', message: /GS1 .*month/ },
    { rule: 'GS1 DataMatrix bad check digit', format: 'gs1-datamatrix', payload: '(01)09501101530004', code: 'invalid-check-digit', message: /Bad checksum/ },
    { rule: 'GS1 DataMatrix bad syntax', format: 'gs1-datamatrix', payload: '(01', code: 'invalid-format', message: /GS1/ },
    { rule: 'GS1 DataMatrix non-ASCII value', format: 'gs1-datamatrix', payload: '(10)SÜD', code: 'invalid-format', message: /GS1/ },
    { rule: 'QR over capacity', format: 'qr', payload: '€'.repeat(1024), code: 'too-long', message: /too long to encode as QR Code/i },
    { rule: 'Data Matrix over capacity', format: 'datamatrix', payload: 'ü'.repeat(1024), code: 'too-long', message: /too long to encode as Data Matrix/i },
    { rule: 'PDF417 over capacity', format: 'pdf417', payload: '€'.repeat(1024), code: 'too-long', message: /too long to encode as PDF417/i },
    { rule: 'Aztec over capacity', format: 'aztec', payload: 'ü'.repeat(1024), code: 'too-long', message: /too long to encode as Aztec Code/i },
    { rule: 'Code 128 over bwip-js input limit', format: 'code128', payload: 'A'.repeat(1024), code: 'too-long', message: /too long to encode as Code 128/i },
    { rule: 'empty payload', format: 'qr', payload: '', code: 'invalid-format', message: /empty/ },
    { rule: 'payload over 1024 characters', format: 'qr', payload: 'A'.repeat(1025), code: 'too-long', message: /1024/ },
    { rule: 'lone surrogate', format: 'datamatrix', payload: 'A\ud800B', code: 'invalid-format', message: /well-formed Unicode/ },
  ])('$rule → ValidationError on payload', async ({ format, payload, code, message }) => {
    // Act
    const error = await renderError(format, payload);

    // Assess
    expect(error).toBeInstanceOf(ValidationError);
    const validation = error as ValidationError;
    expect(validation.status).toBe(400);
    expect(validation.code).toBe('customer-api.validation.failed');
    expect(validation.errors).toHaveLength(1);
    expect(validation.errors[0]).toMatchObject({ location: 'query', name: 'payload', code });
    expect(validation.errors[0]?.message).toMatch(message);
  });
});
