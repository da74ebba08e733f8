import type { Item } from '../inventory/item.ts';
import { ITEM_MAX_LENGTHS } from '../inventory/item.ts';
import type { Location } from '../inventory/location.ts';
import { LOCATION_MAX_LENGTHS } from '../inventory/location.ts';
import { sumQuantities } from '../inventory/stock.ts';
import { hasRoomFor, newCount, withCountLine } from '../stock/documents.ts';
import { documentKey, MAX_DOCUMENT_LINE_BYTES, MAX_DOCUMENT_LINES } from '../stock/records.ts';
import { RowReader } from './cells.ts';
import type { ImportKindDefinition, UnitDecision } from './kind-definition.ts';
import { onePlaceKeys, onePlaceReferences, oneRow, stockKindBasics, stockOf } from './stock-kind.ts';
import { alreadyApplied, entryKey, failed, lotError, optionalLot, refusal, requiredQuantity, STOCK_MAX_LENGTHS } from './stock-rows.ts';
import type { RawRow } from './types.ts';

/**
 * Import kind `stock-counts` (docs/inventory.md "stock-counts"): each row states what was counted
 * of an item (and lot) at the count's location; on-hand is set to it, the variance recorded as a
 * `count` movement. The rows of one countReference in a file form one count (`cnt_…`) at one
 * location, announced by one `count.completed` after its last row. Natural key countReference +
 * sku + lot.
 */

export interface CountRow {
  countReference: string;
  locationCode: string;
  sku: string;
  countedQuantity: number;
  /** The cell as written, for the row error. */
  countedQuantityCell: string;
  lot: string | null;
}

const KIND = 'stock-counts';
const keyOf = (row: CountRow) => entryKey(KIND, row.countReference, row.sku, row.lot);

function parseCount(raw: RawRow, rowNumber: number) {
  const cells = new RowReader(raw, rowNumber);
  const countReference = cells.requiredIdentifier('countReference', STOCK_MAX_LENGTHS.reference);
  const locationCode = cells.requiredIdentifier('locationCode', LOCATION_MAX_LENGTHS.code);
  const sku = cells.requiredIdentifier('sku', ITEM_MAX_LENGTHS.sku);
  const countedQuantity = requiredQuantity(cells, 'countedQuantity', 'non-negative');
  const lot = optionalLot(cells, 'lot');
  return cells.result<CountRow>(() =>
    countReference === undefined || locationCode === undefined || sku === undefined || countedQuantity === undefined || lot === undefined
      ? undefined
      : { countReference, locationCode, sku, countedQuantity, countedQuantityCell: cells.cell('countedQuantity') ?? '', lot },
  );
}

export const stockCountsKind: ImportKindDefinition<CountRow, unknown> = {
  ...stockKindBasics,
  kind: KIND,
  title: 'Stock counts',
  description: `Records a physical count: each row sets the on-hand of an item (in a lot, for items tracked by lot) at the count's location to the counted quantity, and records any variance as a count movement. The rows of one countReference in a file form one count at one location (countId cnt_…, at most ${MAX_DOCUMENT_LINES} lines), announced by one count.completed after its last row with every line's expected, counted and delta. Re-importing a row changes nothing (natural key countReference + sku + lot). Emits movement.created, stock.changed and low-stock per variance.`,
  columns: [
    { name: 'countReference', required: true, type: 'string', description: `Your reference of the count, at most ${STOCK_MAX_LENGTHS.reference} characters; rows with the same one form one count.` },
    { name: 'locationCode', required: true, type: 'string', description: 'code of the counted location; the same on every row of a count.' },
    { name: 'sku', required: true, type: 'string', description: 'sku of an item of the organization.' },
    { name: 'countedQuantity', required: true, type: 'number', description: 'Quantity counted, 0 or greater, at most 6 decimals.' },
    { name: 'lot', required: false, type: 'string', description: `Lot; required for items tracked by lot, refused for others. At most ${STOCK_MAX_LENGTHS.lot} characters.` },
  ],
  naturalKey: ['countReference', 'sku', 'lot'],
  parseRow: parseCount,
  naturalKeyOf: keyOf,
  references: onePlaceReferences,
  stock: {
    keysOf: onePlaceKeys,
    document: { type: 'stock-count', referenceOf: (raw) => raw.countreference },
  },
  decideUnit(unit, existing, strategy, context): UnitDecision {
    const row = oneRow(unit);
    const { rowNumber } = context;
    if (existing) return alreadyApplied(strategy, rowNumber, 'countReference', row.countReference, `Line ${row.sku} of count "${row.countReference}"`);
    const item = context.resolve('item', row.sku)?.record as Item;
    const location = context.resolve('location', row.locationCode)?.record as Location;
    const lotProblem = lotError(item, row.lot, 'lot', rowNumber);
    if (lotProblem) return failed(lotProblem);
    const { ledger, jobId } = stockOf(context);
    const count = ledger.document(documentKey(jobId, 'stock-count', row.countReference)) ?? newCount(jobId, row.countReference, location.id, context.now);
    if (count.type !== 'stock-count') throw new Error('A count document is a stock count');
    if (count.locationId !== location.id) {
      return failed({ rowNumber, column: 'locationCode', value: row.locationCode, code: 'invalid-value', message: `Count "${row.countReference}" is of another location; a count covers one location.` });
    }
    const side = { location, lot: row.lot };
    const expected = ledger.onHand(item, side);
    const delta = sumQuantities([row.countedQuantity, -expected]);
    const line = { itemId: item.id, sku: item.sku, lot: row.lot, expected, counted: row.countedQuantity, delta };
    if (!hasRoomFor(count, line)) {
      return failed({ rowNumber, column: 'countReference', value: row.countReference, code: 'too-many-lines', message: `A count holds at most ${MAX_DOCUMENT_LINES} lines (${MAX_DOCUMENT_LINE_BYTES / 1024} KiB) per file; split count "${row.countReference}" across files.` });
    }
    const movementIds: string[] = [];
    if (delta !== 0) {
      const moved = ledger.move({ type: 'count', item, quantity: Math.abs(delta), ...(delta < 0 ? { from: side } : { to: side }), reference: row.countReference, occurredAt: context.now });
      if (!moved.ok) return failed(refusal(moved, rowNumber, 'countedQuantity', row.countedQuantityCell, `${row.sku} at ${row.locationCode}`, Math.abs(delta)));
      movementIds.push(moved.movementId);
    }
    ledger.putDocument(withCountLine(count, line));
    return { action: 'created', writes: [{ op: 'claim-entry', entry: { key: keyOf(row), jobId, movementIds, appliedAt: context.now } }], events: [] };
  },
};
