import { countClaimKey } from '../claims.ts';
import { decideCountLine } from '../counts.ts';
import { referenceOf, type StockChangeKindSpec } from './command.ts';

/**
 * `POST /v1/stock/counts` (docs/inventory.md "Writing stock over JSON"): one count at one
 * location; each line sets an item's (and lot's) on-hand there to what was counted, the variance
 * a `count` movement, decided as a `stock-counts` import row (`decideCountLine`), claimed under
 * countReference + sku + lot. The count (`cnt_…`) closes with the change: `count.completed`.
 */

export interface CountLineInput {
  sku?: string;
  itemId?: string;
  lot: string | null;
  countedQuantity: number;
  expectedQuantity: number | null;
}

export interface CountInput {
  countReference: string;
  locationCode?: string;
  locationId?: string;
  lines: CountLineInput[];
}

export const countSpec: StockChangeKindSpec<CountInput> = {
  kind: 'count',
  audit: 'stock.counted',
  document: 'stock-count',
  changesItemTotals: true,
  reference: (input) => input.countReference,
  reason: () => null,
  locations: (input) => [referenceOf(input.locationCode, input.locationId, input.locationCode === undefined ? '/locationId' : '/locationCode')],
  claimKey: (input, line, { sku }) => countClaimKey(input.countReference, sku, line.lot),
  plan: (input, line, { item, locations: [location] }) => {
    if (!location) throw new Error('A count is of one location');
    return {
      sides: [{ location, lot: line.lot }],
      requested: line.countedQuantity,
      decide: (ledger, at) =>
        decideCountLine(
          {
            countReference: input.countReference,
            locationCode: location.code,
            sku: item.sku,
            countedQuantity: line.countedQuantity,
            countedQuantityCell: String(line.countedQuantity),
            lot: line.lot,
          },
          { item, location },
          ledger,
          at,
        ),
    };
  },
};
