import { stockChangeHandler } from '../../../lib/app/composition-stock-changes.ts';
import { transferStockContract } from '../../../lib/stock/contracts/operations.ts';
import { transferSpec } from '../../../lib/stock/domain/changes/transfer.ts';
import { transferStockRoute } from '../../../lib/stock/routes.ts';

export const handler = stockChangeHandler(transferStockRoute, transferStockContract, transferSpec, (body) => ({
  reference: body.reference,
  lines: body.lines.map((line) => ({ ...line, lot: line.lot ?? null })),
}));
