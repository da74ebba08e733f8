import { decideAdjustment } from '../adjustments.ts';
import { adjustmentClaimKey } from '../claims.ts';
import { referenceOf, type StockChangeKindSpec } from './command.ts';

/**
 * `POST /v1/stock/adjustments` (docs/inventory.md "Writing stock over JSON"): each line adds to or
 * takes from one stock record, decided as a `stock-adjustments` import row (`decideAdjustment`)
 * and claimed under its natural key reference + sku + location + lot.
 */

export interface AdjustmentLineInput {
  sku?: string;
  itemId?: string;
  locationCode?: string;
  locationId?: string;
  lot: string | null;
  quantityDelta: number;
  expectedQuantity: number | null;
}

export interface AdjustmentInput {
  reference: string;
  reason: string | null;
  lines: AdjustmentLineInput[];
}

export const adjustmentSpec: StockChangeKindSpec<AdjustmentInput> = {
  kind: 'adjustment',
  audit: 'stock.adjusted',
  changesItemTotals: true,
  reference: (input) => input.reference,
  reason: (input) => input.reason,
  locations: (input, index) => {
    const line = input.lines[index] as AdjustmentLineInput;
    return [referenceOf(line.locationCode, line.locationId, `/lines/${index}/${line.locationCode === undefined ? 'locationId' : 'locationCode'}`)];
  },
  claimKey: (input, line, { sku, locationCodes }) => adjustmentClaimKey(input.reference, sku, locationCodes[0] ?? '', line.lot),
  plan: (input, line, { item, locations: [location] }) => {
    if (!location) throw new Error('An adjustment line names one location');
    return {
      sides: [{ location, lot: line.lot }],
      requested: Math.abs(line.quantityDelta),
      decide: (ledger, at) =>
        decideAdjustment(
          {
            reference: input.reference,
            sku: item.sku,
            locationCode: location.code,
            quantityDelta: line.quantityDelta,
            quantityDeltaCell: String(line.quantityDelta),
            lot: line.lot,
            reason: input.reason,
          },
          { item, location },
          ledger,
          at,
        ),
    };
  },
};
