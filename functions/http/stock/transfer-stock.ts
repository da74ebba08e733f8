import { stockChangeHandler } from '../../../lib/composition-stock-changes.ts';
import { transferStockContract } from '../../../lib/contracts/stock/operations.ts';
import { transferSpec } from '../../../lib/domain/stock/changes/transfer.ts';
import { transferStockRoute } from '../../../lib/routes/stock.ts';

export const handler = stockChangeHandler(transferStockRoute, transferStockContract, transferSpec, (body) => ({
  reference: body.reference,
  lines: body.lines.map((line) => ({ ...line, lot: line.lot ?? null })),
}));
