import type { Item } from '../../inventory/index.ts';
import { ITEM_MAX_LENGTHS } from '../../inventory/index.ts';
import type { Location } from '../../inventory/index.ts';
import { LOCATION_MAX_LENGTHS } from '../../inventory/index.ts';
import { decideReceiptLine, receivedAtTime, type ReceiptRow } from '../../stock/index.ts';
import { MAX_DOCUMENT_LINES, STOCK_MAX_LENGTHS } from '../../stock/index.ts';
import { RowReader } from './cells.ts';
import { receiptClaimKey } from '../../stock/index.ts';
import type { ImportKindDefinition, UnitDecision } from './kind-definition.ts';
import { alreadyApplied, claimed, onePlaceKeys, onePlaceReferences, oneRow, optionalLot, requiredQuantity, stockKindBasics, stockOf } from './stock-kind.ts';
import type { RawRow } from './types.ts';

/**
 * Import kind `po-receipts` (docs/inventory.md "po-receipts"): each row receives a quantity of an
 * item into a location; the rows of one poNumber in a file form one receipt (`rcp_…`), announced
 * by one `po.received` after its last row. Natural key poNumber + sku + locationCode + lot.
 *
 * Each row is decided by lib/stock/domain/receipts.ts.
 */

const KIND = 'po-receipts';
const keyOf = (row: ReceiptRow) => receiptClaimKey(row.poNumber, row.sku, row.locationCode, row.lot);
function parseReceivedAt(cells: RowReader): string | null | undefined {
  const cell = cells.cell('receivedAt');
  if (cell === undefined || cell.trim() === '') return null;
  const time = receivedAtTime(cell);
  if (!time.ok) {
    cells.error('receivedAt', cell, 'invalid-value', `receivedAt ${time.message}`);
    return undefined;
  }
  return time.value;
}

function parseReceipt(raw: RawRow, rowNumber: number) {
  const cells = new RowReader(raw, rowNumber);
  const poNumber = cells.requiredIdentifier('poNumber', STOCK_MAX_LENGTHS.reference);
  const sku = cells.requiredIdentifier('sku', ITEM_MAX_LENGTHS.sku);
  const locationCode = cells.requiredIdentifier('locationCode', LOCATION_MAX_LENGTHS.code);
  const quantity = requiredQuantity(cells, 'quantity', 'positive');
  const lot = optionalLot(cells, 'lot');
  const receivedAt = parseReceivedAt(cells);
  return cells.result<ReceiptRow>(() =>
    poNumber === undefined || sku === undefined || locationCode === undefined || quantity === undefined || lot === undefined || receivedAt === undefined
      ? undefined
      : { poNumber, sku, locationCode, quantity, quantityCell: cells.cell('quantity') ?? '', lot, receivedAt },
  );
}

export const poReceiptsKind: ImportKindDefinition<ReceiptRow, unknown> = {
  ...stockKindBasics,
  kind: KIND,
  title: 'PO receipts',
  description: `Receives purchased stock: each row adds a quantity of an item into a location (in a lot, for items tracked by lot). The rows of one poNumber in a file form one receipt (receiptId rcp_…, at most ${MAX_DOCUMENT_LINES} lines), announced by one po.received after its last row. Re-importing a row moves nothing (natural key poNumber + sku + locationCode + lot). Emits movement.created and stock.changed per row, and po.received per PO.`,
  columns: [
    {
      name: 'poNumber',
      required: true,
      type: 'string',
      description: `Purchase order number, at most ${STOCK_MAX_LENGTHS.reference} characters; rows with the same one form one receipt.`,
    },
    { name: 'sku', required: true, type: 'string', description: 'sku of an item of the organization.' },
    { name: 'locationCode', required: true, type: 'string', description: 'code of the location receiving the stock.' },
    { name: 'quantity', required: true, type: 'number', description: 'Quantity received, greater than 0, at most 6 decimals.' },
    {
      name: 'lot',
      required: false,
      type: 'string',
      description: `Lot; required for items tracked by lot, refused for others. At most ${STOCK_MAX_LENGTHS.lot} characters.`,
    },
    {
      name: 'receivedAt',
      required: false,
      type: 'date-time',
      description:
        "When the goods arrived (ISO 8601 with Z or an offset, from 1970 on, not in the future): the movement's occurredAt, in UTC to the millisecond. Default: when the row is applied.",
    },
  ],
  naturalKey: ['poNumber', 'sku', 'locationCode', 'lot'],
  parseRow: parseReceipt,
  naturalKeyOf: keyOf,
  references: onePlaceReferences,
  stock: {
    keysOf: onePlaceKeys,
    document: { type: 'po-receipt', referenceOf: (raw) => raw.ponumber },
  },
  decideUnit(unit, existing, strategy, context): UnitDecision {
    const row = oneRow(unit);
    const { rowNumber } = context;
    if (existing) return alreadyApplied(strategy, rowNumber, 'poNumber', row.poNumber, `Line ${row.sku} at ${row.locationCode} of PO "${row.poNumber}"`);
    const item = context.resolve('item', row.sku)?.record as Item;
    const location = context.resolve('location', row.locationCode)?.record as Location;
    const { ledger, jobId } = stockOf(context);
    return claimed(decideReceiptLine(row, { item, location }, ledger, { rowNumber, now: context.now, jobId }), keyOf(row), jobId, context.now);
  },
};
