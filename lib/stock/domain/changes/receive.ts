import { receiptClaimKey } from '../claims.ts';
import { decideReceiptLine } from '../receipts.ts';
import { referenceOf, type StockChangeKindSpec } from './command.ts';

/**
 * `POST /v1/stock/receipts` (docs/inventory.md "Writing stock over JSON"): goods of one PO
 * received; each line adds a quantity of an item (and lot) at a location, decided as a
 * `po-receipts` import row (`decideReceiptLine`), claimed under poNumber + sku + location + lot.
 * `expectedQuantity` is optional here. The receipt (`rcp_…`) closes with the change: `po.received`.
 */

export interface ReceiptLineInput {
  sku?: string;
  itemId?: string;
  locationCode?: string;
  locationId?: string;
  lot: string | null;
  quantity: number;
  expectedQuantity: number | null;
}

export interface ReceiptInput {
  poNumber: string;
  /** When the goods arrived: the movements' time; null: when the change commits. */
  receivedAt: string | null;
  lines: ReceiptLineInput[];
}

export const receiptSpec: StockChangeKindSpec<ReceiptInput> = {
  kind: 'receipt',
  audit: 'stock.received',
  document: 'po-receipt',
  changesItemTotals: true,
  reference: (input) => input.poNumber,
  reason: () => null,
  locations: (input, index) => {
    const line = input.lines[index] as ReceiptLineInput;
    return [referenceOf(line.locationCode, line.locationId, `/lines/${index}/${line.locationCode === undefined ? 'locationId' : 'locationCode'}`)];
  },
  claimKey: (input, line, { sku, locationCodes }) => receiptClaimKey(input.poNumber, sku, locationCodes[0] ?? '', line.lot),
  plan: (input, line, { item, locations: [location] }) => {
    if (!location) throw new Error('A receipt line names one location');
    return {
      sides: [{ location, lot: line.lot }],
      requested: line.quantity,
      decide: (ledger, at) =>
        decideReceiptLine(
          {
            poNumber: input.poNumber,
            sku: item.sku,
            locationCode: location.code,
            quantity: line.quantity,
            quantityCell: String(line.quantity),
            lot: line.lot,
            receivedAt: input.receivedAt,
          },
          { item, location },
          ledger,
          at,
        ),
    };
  },
};
