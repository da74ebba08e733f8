import { beforeAll, describe, expect, it } from 'vitest';
import { BARCODE_FORMATS } from '../../lib/labels/domain/formats.ts';
import { callApi, createTestKey } from '../support/api.ts';
import { gs1ElementString, rasterize, scan, svgSize } from '../support/barcode-scanner.ts';
import { expectProblem } from '../support/problem.ts';

/** GET /v1/barcodes over HTTP against `npm start`'s server. */

/** zxing reports GS1-128 with its symbology identifier and GS1 DataMatrix with a leading FNC1 (GS). */
const SAMPLE_PAYLOADS: Record<(typeof BARCODE_FORMATS)[number], { payload: string; decoded: string }> = {
  qr: { payload: 'itm_01J2 Lager Süd', decoded: 'itm_01J2 Lager Süd' },
  datamatrix: { payload: 'LOC-A-01-03', decoded: 'LOC-A-01-03' },
  code128: { payload: 'SKU-12345/ab', decoded: 'SKU-12345/ab' },
  'gs1-128': { payload: '(01)09501101530003(10)LOT42', decoded: `]C1${gs1ElementString('(01)09501101530003(10)LOT42')}` },
  ean13: { payload: '400638133393', decoded: '4006381333931' },
  upca: { payload: '03600029145', decoded: '036000291452' },
  code39: { payload: 'BIN-07 A', decoded: 'BIN-07 A' },
  pdf417: { payload: 'PO-2026-0042 line 3', decoded: 'PO-2026-0042 line 3' },
  aztec: { payload: 'MOV-000123', decoded: 'MOV-000123' },
  'gs1-datamatrix': { payload: '(01)09501101530003(17)261231', decoded: `\u001d${gs1ElementString('(01)09501101530003(17)261231')}` },
};

const barcodeUrl = (params: Record<string, string>) => `/v1/barcodes?${new URLSearchParams(params).toString()}`;

describe('GET /v1/barcodes', () => {
  let key: string;
  beforeAll(async () => {
    key = (await createTestKey({ scopes: ['labels:read'] })).key;
  });

  it.each(BARCODE_FORMATS)('renders a scannable %s image', async (format) => {
    // Prepare
    const { payload, decoded } = SAMPLE_PAYLOADS[format];
    // Act
    const response = await callApi(barcodeUrl({ payload, format }), { key });
    // Assess
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('image/svg+xml');
    expect(response.headers.get('cache-control')).toBe('private, max-age=86400');
    expect(response.headers.get('content-security-policy')).toBe("default-src 'none'");
    expect(response.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]+"$/);
    const svg = await response.text();
    expect(scan(rasterize(svg), format).text).toBe(decoded);
  });

  it('defaults to QR and is deterministic, with a stable ETag and 304 on If-None-Match', async () => {
    // Act
    const first = await callApi(barcodeUrl({ payload: 'hello' }), { key });
    const second = await callApi(barcodeUrl({ payload: 'hello', format: 'qr' }), { key });
    const body = await first.text();
    const etag = first.headers.get('etag') ?? '';
    const conditional = await callApi(barcodeUrl({ payload: 'hello' }), { key, headers: { 'if-none-match': etag } });
    // Assess
    expect(await second.text()).toBe(body);
    expect(second.headers.get('etag')).toBe(etag);
    expect(scan(rasterize(body), 'qr').text).toBe('hello');
    expect(conditional.status).toBe(304);
  });

  it('sizes the image in millimetres from decimal strings, keeping the aspect ratio', async () => {
    const svg = await (await callApi(barcodeUrl({ payload: 'W-1', format: 'datamatrix', widthMm: '25.5' }), { key })).text();
    const size = svgSize(svg);
    expect(size.widthMm).toBeCloseTo(25.5, 5);
    expect(size.heightMm).toBeCloseTo(25.5, 5);
  });

  it.each([
    [{ format: 'qr' }, 'payload', 'required'],
    [{ payload: '' }, 'payload', 'too-short'],
    [{ payload: 'x'.repeat(1025) }, 'payload', 'too-long'],
    [{ payload: 'x', format: 'bogus' }, 'format', 'invalid-value'],
    [{ payload: 'x', widthMm: '0.5' }, 'widthMm', 'out-of-range'],
    [{ payload: 'x', widthMm: '1e2' }, 'widthMm', 'invalid-format'],
    [{ payload: 'x', heightMm: '1001' }, 'heightMm', 'out-of-range'],
    [{ payload: 'x', colour: 'red' }, 'colour', 'unknown-field'],
    [{ payload: '4006381333932', format: 'ean13' }, 'payload', 'invalid-check-digit'],
    [{ payload: 'abc', format: 'upca' }, 'payload', 'invalid-format'],
    [{ payload: 'lower', format: 'code39' }, 'payload', 'invalid-format'],
    [{ payload: '(99', format: 'gs1-128' }, 'payload', 'invalid-format'],
  ])('answers 400 for %j (%s: %s)', async (params, name, code) => {
    // Act
    const response = await callApi(barcodeUrl(params as Record<string, string>), { key });
    // Assess
    const problem = await expectProblem(response, 400, 'customer-api.validation.failed');
    expect(problem.errors).toContainEqual(expect.objectContaining({ location: 'query', name, code }));
  });

  it('answers 400 when a parameter is repeated', async () => {
    const problem = await expectProblem(await callApi('/v1/barcodes?payload=a&payload=b', { key }), 400);
    expect(problem.errors).toContainEqual(expect.objectContaining({ name: 'payload', code: 'repeated' }));
  });

  it('answers 406 when the client accepts no image', async () => {
    await expectProblem(
      await callApi(barcodeUrl({ payload: 'x' }), { key, headers: { accept: 'application/json' } }),
      406,
      'customer-api.request.not-acceptable',
    );
  });
});
