import { stockChangeHandler } from '../../../lib/app/composition-stock-changes.ts';
import { receiveStockContract } from '../../../lib/stock/contracts/operations.ts';
import { receiptSpec } from '../../../lib/stock/domain/changes/receive.ts';
import { receivedAtTime } from '../../../lib/stock/domain/receipts.ts';
import { receiveStockRoute } from '../../../lib/stock/routes.ts';

export const handler = stockChangeHandler(receiveStockRoute, receiveStockContract, receiptSpec, (body) => ({
  poNumber: body.poNumber,
  // The contract checked it; in UTC to the millisecond, as an imported receipt's.
  receivedAt: body.receivedAt ? (receivedAtTime(body.receivedAt) as { value: string }).value : null,
  lines: body.lines.map((line) => ({ ...line, lot: line.lot ?? null, expectedQuantity: line.expectedQuantity ?? null })),
}));
