import { stockChangeHandler } from '../../../lib/app/composition-stock-changes.ts';
import { adjustStockContract } from '../../../lib/stock/contracts/operations.ts';
import { adjustmentSpec } from '../../../lib/stock/domain/changes/adjust.ts';
import { adjustStockRoute } from '../../../lib/stock/routes.ts';

export const handler = stockChangeHandler(adjustStockRoute, adjustStockContract, adjustmentSpec, (body) => ({
  reference: body.reference,
  reason: body.reason ?? null,
  lines: body.lines.map((line) => ({ ...line, lot: line.lot ?? null })),
}));
