import { describe, expect, it } from 'vitest';
import type { BarcodeFormat } from '../../../lib/labels/domain/formats.ts';
import { renderBarcode } from '../../../lib/labels/domain/render-barcode.ts';
import { ZXING_FORMAT, gs1ElementString, rasterize, scan } from '../../support/barcode-scanner.ts';

/**
 * zxing-js ignores ECI and decodes the bytes of Data Matrix/PDF417/Aztec with
 * `new TextDecoder('ISO-8859-1')`, which the WHATWG Encoding standard (Node 22) maps to
 * windows-1252: one character per byte, so the mapping inverts to the bytes the symbol carries.
 */
const ZXING_DECODER = new TextDecoder('ISO-8859-1');
const BYTE_OF_CHARACTER = new Map(Array.from({ length: 256 }, (_, byte) => [ZXING_DECODER.decode(Uint8Array.of(byte)), byte]));

function bytesZxingRead(text: string): Buffer {
  return Buffer.from(
    [...text].map((character) => {
      const byte = BYTE_OF_CHARACTER.get(character);
      if (byte === undefined) throw new Error(`zxing-js returned ${JSON.stringify(character)}, which no single byte decodes to`);
      return byte;
    }),
  );
}

const UTF8_PAYLOADS = ['Lager Süd – Regal 7', '📦 Paket 42 · Größe XL'];

describe('renderBarcode scans back to its payload', () => {
  it.each<{ format: BarcodeFormat; payload: string; expected: string }>([
    { format: 'qr', payload: 'INV-000123', expected: 'INV-000123' },
    { format: 'qr', payload: 'https://example.com/items/it_01J?x=1&y=^2', expected: 'https://example.com/items/it_01J?x=1&y=^2' },
    { format: 'datamatrix', payload: 'INV-000123 lot 7/B', expected: 'INV-000123 lot 7/B' },
    { format: 'pdf417', payload: 'Order 4711; ship to dock 3', expected: 'Order 4711; ship to dock 3' },
    { format: 'aztec', payload: 'Ticket AZ-99 ^caret', expected: 'Ticket AZ-99 ^caret' },
    { format: 'code128', payload: 'ABC-123 xyz/~^{}', expected: 'ABC-123 xyz/~^{}' },
    { format: 'code39', payload: 'ABC-123', expected: 'ABC-123' },
    { format: 'code39', payload: 'WH1 $/+%.', expected: 'WH1 $/+%.' },
    // 12 / 11 digits: the scanned value carries the check digit we computed.
    { format: 'ean13', payload: '590123412345', expected: '5901234123457' },
    { format: 'ean13', payload: '4006381333931', expected: '4006381333931' },
    { format: 'upca', payload: '03600029145', expected: '036000291452' },
    { format: 'upca', payload: '012345678905', expected: '012345678905' },
  ])('$format "$payload"', async ({ format, payload, expected }) => {
    // Prepare
    const svg = await renderBarcode({ format, payload });

    // Act
    const result = scan(rasterize(svg), format);

    // Assess
    expect(result.format).toBe(ZXING_FORMAT[format]);
    expect(result.text).toBe(expected);
  });

  it.each(UTF8_PAYLOADS)('qr carries UTF-8 text "%s" exactly (ECI 000026)', async (payload) => {
    // Prepare
    const svg = await renderBarcode({ format: 'qr', payload });

    // Act
    const result = scan(rasterize(svg), 'qr');

    // Assess
    expect(result.text).toBe(payload);
  });

  it.each<{ format: BarcodeFormat; payload: string }>(
    (['datamatrix', 'pdf417', 'aztec'] as const).flatMap((format) => UTF8_PAYLOADS.map((payload) => ({ format, payload }))),
  )('$format carries the UTF-8 bytes of "$payload"', async ({ format, payload }) => {
    // Prepare
    const svg = await renderBarcode({ format, payload });

    // Act
    const result = scan(rasterize(svg), format);

    // Assess: the symbol carries exactly the payload's UTF-8 bytes.
    expect(bytesZxingRead(result.text)).toEqual(Buffer.from(payload, 'utf8'));
  });

  it.each<{ format: BarcodeFormat; payload: string; prefix: string }>([
    // zxing-js reports GS1-128 with its symbology identifier, GS1 DataMatrix with a leading FNC1 (GS).
    { format: 'gs1-128', payload: '(01)09501101530003(17)260101(10)ABC123', prefix: ']C1' },
    { format: 'gs1-128', payload: '(01)09501101530003(10)ABC123(17)260101', prefix: ']C1' },
    { format: 'gs1-128', payload: '(00)095011015300000003', prefix: ']C1' },
    { format: 'gs1-datamatrix', payload: '(01)09501101530003(17)260101(10)ABC123', prefix: '\u001d' },
    { format: 'gs1-datamatrix', payload: '(01)09501101530003(10)ABC123(21)XYZ-9(17)260101', prefix: '\u001d' },
  ])('$format "$payload" scans as the GS1 element string', async ({ format, payload, prefix }) => {
    // Prepare
    const svg = await renderBarcode({ format, payload });

    // Act
    const result = scan(rasterize(svg), format);

    // Assess
    expect(result.text).toBe(prefix + gs1ElementString(payload));
  });
});

describe('gs1ElementString (test helper)', () => {
  it.each([
    ['(01)09501101530003(17)260101(10)ABC123', '01095011015300031726010110ABC123'],
    ['(01)09501101530003(10)ABC123(17)260101', '010950110153000310ABC123\u001d17260101'],
    ['(10)A(21)B', '10A\u001d21B'],
  ])('%s → raw element string', async (bracketed, raw) => {
    // Act
    const result = gs1ElementString(bracketed);

    // Assess
    expect(result).toBe(raw);
  });
});
