import { benchBarcodes } from './barcodes.ts';

/**
 * `npm run bench`: benchmarks that need no running stack run here. Benchmarks that need the
 * local stack (e.g. import throughput) say how to run them in their own header.
 */
benchBarcodes();
