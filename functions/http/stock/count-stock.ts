import { stockChangeHandler } from '../../../lib/composition-stock-changes.ts';
import { countStockContract } from '../../../lib/contracts/stock/operations.ts';
import { countSpec } from '../../../lib/domain/stock/changes/count.ts';
import { countStockRoute } from '../../../lib/routes/stock.ts';

export const handler = stockChangeHandler(countStockRoute, countStockContract, countSpec, (body) => ({
  ...body,
  lines: body.lines.map((line) => ({ ...line, lot: line.lot ?? null })),
}));
