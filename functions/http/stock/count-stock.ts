import { stockChangeHandler } from '../../../lib/app/composition-stock-changes.ts';
import { countStockContract } from '../../../lib/stock/contracts/operations.ts';
import { countSpec } from '../../../lib/stock/domain/changes/count.ts';
import { countStockRoute } from '../../../lib/stock/routes.ts';

export const handler = stockChangeHandler(countStockRoute, countStockContract, countSpec, (body) => ({
  ...body,
  lines: body.lines.map((line) => ({ ...line, lot: line.lot ?? null })),
}));
