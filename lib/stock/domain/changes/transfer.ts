import { transferClaimKey } from '../claims.ts';
import { decideTransfer } from '../transfers.ts';
import { referenceOf, type StockChangeKindSpec } from './command.ts';

/**
 * `POST /v1/stock/transfers` (docs/inventory.md "Writing stock over JSON"): each line moves a
 * quantity of one item (and lot) from one location to another, decided as a `stock-transfers`
 * import row (`decideTransfer`), claimed under reference + sku + lot. Its `expectedQuantity` is
 * the source record's on-hand; the change lists both legs, the source first.
 */

export interface TransferLineInput {
  sku?: string;
  itemId?: string;
  fromLocationCode?: string;
  fromLocationId?: string;
  toLocationCode?: string;
  toLocationId?: string;
  lot: string | null;
  quantity: number;
  expectedQuantity: number | null;
}

export interface TransferInput {
  reference: string;
  lines: TransferLineInput[];
}

export const transferSpec: StockChangeKindSpec<TransferInput> = {
  kind: 'transfer',
  audit: 'stock.transferred',
  // A transfer moves stock between locations and leaves its item's total as it is.
  changesItemTotals: false,
  reference: (input) => input.reference,
  reason: () => null,
  locations: (input, index) => {
    const line = input.lines[index] as TransferLineInput;
    return [
      referenceOf(line.fromLocationCode, line.fromLocationId, `/lines/${index}/${line.fromLocationCode === undefined ? 'fromLocationId' : 'fromLocationCode'}`),
      referenceOf(line.toLocationCode, line.toLocationId, `/lines/${index}/${line.toLocationCode === undefined ? 'toLocationId' : 'toLocationCode'}`),
    ];
  },
  problem: (line, { locations: [from, to] }, index) => {
    if (!from || from.id !== to?.id) return undefined;
    const field = line.toLocationCode === undefined ? 'toLocationId' : 'toLocationCode';
    return { location: 'body', pointer: `/lines/${index}/${field}`, code: 'invalid-value', message: 'The destination must differ from the source location.' };
  },
  claimKey: (input, line, { sku }) => transferClaimKey(input.reference, sku, line.lot),
  plan: (input, line, { item, locations: [from, to] }) => {
    if (!from || !to) throw new Error('A transfer line names two locations');
    return {
      sides: [
        { location: from, lot: line.lot },
        { location: to, lot: line.lot },
      ],
      requested: line.quantity,
      decide: (ledger, at) =>
        decideTransfer(
          {
            reference: input.reference,
            sku: item.sku,
            fromLocationCode: from.code,
            toLocationCode: to.code,
            quantity: line.quantity,
            quantityCell: String(line.quantity),
            lot: line.lot,
          },
          { item, from, to },
          ledger,
          at,
        ),
    };
  },
};
