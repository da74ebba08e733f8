import { stockChangeHandler } from '../../../lib/composition-stock-changes.ts';
import { adjustStockContract } from '../../../lib/contracts/stock/operations.ts';
import { adjustmentSpec } from '../../../lib/domain/stock/changes/adjust.ts';
import { adjustStockRoute } from '../../../lib/routes/stock.ts';

export const handler = stockChangeHandler(adjustStockRoute, adjustStockContract, adjustmentSpec, (body) => ({
  reference: body.reference,
  reason: body.reason ?? null,
  lines: body.lines.map((line) => ({ ...line, lot: line.lot ?? null })),
}));
