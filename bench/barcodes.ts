import { BARCODE_FORMATS, type BarcodeFormat } from '../lib/contracts/labels.ts';
import { renderBarcode } from '../lib/domain/labels/render-barcode.ts';

/**
 * Barcode rendering cost per format (pure CPU, no stack): median and p90 of repeated renders of a
 * typical label payload and of a long payload near the 1024-character limit for 2D formats.
 * Run with `npm run bench`; the machine is shared, so compare medians and ratios, not single runs.
 */

const TYPICAL: Record<BarcodeFormat, string> = {
  qr: 'itm_01JD5R3Q6T9XW2K4M8N0P7S1VB',
  datamatrix: 'LOC-WH1-A-01-03',
  code128: 'SKU-12345-ABC',
  'gs1-128': '(01)09501101530003(10)LOT42',
  ean13: '400638133393',
  upca: '03600029145',
  code39: 'BIN-07 A',
  pdf417: 'PO-2026-0042 line 3 qty 12',
  aztec: 'MOV-000123',
  'gs1-datamatrix': '(01)09501101530003(17)261231',
};

function measure(run: () => void, iterations: number): { median: number; p90: number } {
  for (let i = 0; i < 3; i += 1) run();
  const samples: number[] = [];
  for (let i = 0; i < iterations; i += 1) {
    const started = performance.now();
    run();
    samples.push(performance.now() - started);
  }
  samples.sort((a, b) => a - b);
  return { median: samples[Math.floor(samples.length / 2)] ?? 0, p90: samples[Math.floor(samples.length * 0.9)] ?? 0 };
}

export function benchBarcodes(): void {
  console.log('barcodes: render time per image (ms)');
  console.log('format          median   p90     bytes');
  for (const format of BARCODE_FORMATS) {
    const payload = TYPICAL[format];
    let bytes = 0;
    const { median, p90 } = measure(() => {
      bytes = renderBarcode({ payload, format }).length;
    }, 40);
    console.log(`${format.padEnd(15)} ${median.toFixed(2).padStart(6)}  ${p90.toFixed(2).padStart(6)}  ${String(bytes).padStart(7)}`);
  }
  const long = 'x'.repeat(1000);
  const qrLong = measure(() => renderBarcode({ payload: long, format: 'qr' }), 5);
  const qrShort = measure(() => renderBarcode({ payload: TYPICAL.qr, format: 'qr' }), 40);
  console.log(`qr, 1000-char payload: median ${qrLong.median.toFixed(1)} ms = ${(qrLong.median / qrShort.median).toFixed(1)}× the typical label`);
}
