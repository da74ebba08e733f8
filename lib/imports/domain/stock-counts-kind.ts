import type { Item } from '../../inventory/index.ts';
import { ITEM_MAX_LENGTHS } from '../../inventory/index.ts';
import type { Location } from '../../inventory/index.ts';
import { LOCATION_MAX_LENGTHS } from '../../inventory/index.ts';
import { decideCountLine, type CountRow } from '../../stock/index.ts';
import { MAX_DOCUMENT_LINES, STOCK_MAX_LENGTHS } from '../../stock/index.ts';
import { RowReader } from './cells.ts';
import { countClaimKey } from '../../stock/index.ts';
import type { ImportKindDefinition, UnitDecision } from './kind-definition.ts';
import { alreadyApplied, claimed, onePlaceKeys, onePlaceReferences, oneRow, optionalLot, requiredQuantity, stockKindBasics, stockOf } from './stock-kind.ts';
import type { RawRow } from './types.ts';

/**
 * Import kind `stock-counts` (docs/inventory.md "stock-counts"): each row states what was counted
 * of an item (and lot) at the count's location; on-hand is set to it, the variance recorded as a
 * `count` movement. The rows of one countReference in a file form one count (`cnt_…`) at one
 * location, announced by one `count.completed` after its last row. Natural key countReference +
 * sku + lot.
 *
 * Each row is decided by lib/stock/domain/counts.ts.
 */

const KIND = 'stock-counts';
const keyOf = (row: CountRow) => countClaimKey(row.countReference, row.sku, row.lot);

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
    {
      name: 'countReference',
      required: true,
      type: 'string',
      description: `Your reference of the count, at most ${STOCK_MAX_LENGTHS.reference} characters; rows with the same one form one count.`,
    },
    { name: 'locationCode', required: true, type: 'string', description: 'code of the counted location; the same on every row of a count.' },
    { name: 'sku', required: true, type: 'string', description: 'sku of an item of the organization.' },
    { name: 'countedQuantity', required: true, type: 'number', description: 'Quantity counted, 0 or greater, at most 6 decimals.' },
    {
      name: 'lot',
      required: false,
      type: 'string',
      description: `Lot; required for items tracked by lot, refused for others. At most ${STOCK_MAX_LENGTHS.lot} characters.`,
    },
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
    const { ledger, jobId } = stockOf(context);
    return claimed(decideCountLine(row, { item, location }, ledger, { rowNumber, now: context.now, jobId }), keyOf(row), jobId, context.now);
  },
};
