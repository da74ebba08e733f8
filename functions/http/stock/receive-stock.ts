import { stockChangeHandler } from '../../../lib/composition-stock-changes.ts';
import { receiveStockContract } from '../../../lib/contracts/stock/operations.ts';
import { receiptSpec } from '../../../lib/domain/stock/changes/receive.ts';
import { receivedAtTime } from '../../../lib/domain/stock/receipts.ts';
import { receiveStockRoute } from '../../../lib/routes/stock.ts';

export const handler = stockChangeHandler(receiveStockRoute, receiveStockContract, receiptSpec, (body) => ({
  poNumber: body.poNumber,
  // The contract checked it; in UTC to the millisecond, as an imported receipt's.
  receivedAt: body.receivedAt ? (receivedAtTime(body.receivedAt) as { value: string }).value : null,
  lines: body.lines.map((line) => ({ ...line, lot: line.lot ?? null, expectedQuantity: line.expectedQuantity ?? null })),
}));
