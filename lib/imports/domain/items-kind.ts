import {
  ITEM_DEFAULT_TRACKING_MODE,
  ITEM_DEFAULT_UNIT,
  ITEM_MAX_LENGTHS,
  TRACKING_MODES,
  changeItem,
  newItem,
  type CatalogDecision,
  type Item,
  type TrackingMode,
} from '../../inventory/index.ts';
import { onExistingRecord, RowReader } from './cells.ts';
import { oneRecordPerRowKind, type DecideContext, type RowDecision } from './kind-definition.ts';
import type { DuplicateStrategy, RawRow } from './types.ts';
import { DUPLICATE_STRATEGIES, MAX_FILE_BYTES, MAX_ROWS } from './types.ts';

/**
 * Import kind `items` (docs/imports.md "Kinds"): creates and updates items by `sku`; emits `item.created` and
 * `item.updated` (docs/events.md "Catalog").
 *
 * Absent vs empty (duplicateStrategy `update`): a column absent from the file's header leaves the
 * field unchanged; an empty cell of an optional column sets the field to `null`, or to its
 * default for fields that cannot be null (`unit` → `ea`, `trackingMode` → `none`). A new item
 * gets the same defaults for absent or empty columns.
 *
 * Tracking mode (docs/inventory.md "The stock model"): an update that changes `trackingMode` (an empty cell
 * counts as `none`) is refused with `tracking-change-with-stock` while the item holds stock in any
 * stock record: its lots (or its lot-less records) would be stranded. The item's total on-hand is
 * read through the chunk's stock ledger, which checks it unchanged at commit, so stock received
 * concurrently makes the row be decided again.
 */

/** A parsed row. Optional fields: `undefined` = column absent, `null` = cell empty. */
export interface ItemRow {
  sku: string;
  name: string;
  unit?: string | null;
  description?: string | null;
  category?: string | null;
  barcode?: string | null;
  reorderPoint?: number | null;
  trackingMode?: TrackingMode | null;
}

function parseItemRow(raw: RawRow, rowNumber: number) {
  const cells = new RowReader(raw, rowNumber);
  const sku = cells.requiredIdentifier('sku', ITEM_MAX_LENGTHS.sku);
  const name = cells.requiredText('name', ITEM_MAX_LENGTHS.name);
  const unit = cells.optionalIdentifier('unit', ITEM_MAX_LENGTHS.unit);
  const description = cells.optionalText('description', ITEM_MAX_LENGTHS.description);
  const category = cells.optionalText('category', ITEM_MAX_LENGTHS.category);
  const barcode = cells.optionalIdentifier('barcode', ITEM_MAX_LENGTHS.barcode);
  const reorderPoint = cells.optionalNumber('reorderPoint', { min: 0 });
  const trackingMode = cells.optionalEnum('trackingMode', TRACKING_MODES);
  return cells.result<ItemRow>(() =>
    sku === undefined || name === undefined ? undefined : { sku, name, unit, description, category, barcode, reorderPoint, trackingMode },
  );
}

/** The catalog's decision (lib/inventory/domain/catalog.ts, shared with `POST` / `PATCH /v1/items`) on the strategy's terms. */
function decideItem(
  row: ItemRow,
  existing: Item | undefined,
  strategy: DuplicateStrategy,
  context: Pick<DecideContext, 'now' | 'newId' | 'rowNumber' | 'stock'>,
): RowDecision<Item> {
  const { sku, ...fields } = row;
  if (existing === undefined) return asRowDecision(newItem(sku, fields, context), row, context.rowNumber);
  const duplicate = onExistingRecord(strategy, {
    rowNumber: context.rowNumber,
    column: 'sku',
    value: row.sku,
    message: `An item with sku "${row.sku}" already exists (duplicateStrategy fail).`,
  });
  if (duplicate) return duplicate;
  const ledger = () => {
    if (!context.stock) throw new Error('An items decision that changes trackingMode reads the item total through the stock ledger');
    return context.stock.ledger;
  };
  const decision = changeItem(existing, fields, { now: context.now, onHand: () => ledger().itemTotal(existing.id) });
  if (decision.action === 'updated' && decision.changed.includes('trackingMode')) {
    // Stock jobs that read the item's old tracking mode cannot commit after this change.
    ledger().rewriteItemTotal(existing.id, { read: existing.trackingMode, after: decision.record.trackingMode });
  }
  return asRowDecision(decision, row, context.rowNumber);
}

function asRowDecision(decision: CatalogDecision<Item>, row: ItemRow, rowNumber: number): RowDecision<Item> {
  switch (decision.action) {
    case 'created':
    case 'updated':
      return { action: decision.action, record: decision.record, events: decision.events };
    case 'skipped':
      return { action: 'skipped', events: [] };
    case 'refused':
      return {
        action: 'failed',
        error: { rowNumber, column: decision.field, value: row.trackingMode ?? null, code: decision.code, message: decision.message },
      };
  }
}

export const itemsKind = oneRecordPerRowKind<ItemRow, Item>({
  kind: 'items',
  title: 'Items',
  description:
    'Creates items and, with duplicateStrategy update, changes existing items matched by sku. With update, a column missing from the file leaves the field unchanged and an empty cell clears it (unit and trackingMode return to their defaults). A trackingMode change (an empty cell included) is refused with tracking-change-with-stock while any stock record of the item is non-zero. Emits item.created and item.updated.',
  columns: [
    {
      name: 'sku',
      required: true,
      type: 'string',
      description: `Stock keeping unit; the natural key. At most ${ITEM_MAX_LENGTHS.sku} characters, no leading or trailing spaces.`,
    },
    { name: 'name', required: true, type: 'string', description: `Item name, at most ${ITEM_MAX_LENGTHS.name} characters.` },
    {
      name: 'unit',
      required: false,
      type: 'string',
      description: `Unit of measure, e.g. ea, kg, l; at most ${ITEM_MAX_LENGTHS.unit} characters. Default ${ITEM_DEFAULT_UNIT}.`,
    },
    { name: 'description', required: false, type: 'string', description: `Free-text description, at most ${ITEM_MAX_LENGTHS.description} characters.` },
    { name: 'category', required: false, type: 'string', description: `Category, at most ${ITEM_MAX_LENGTHS.category} characters.` },
    { name: 'barcode', required: false, type: 'string', description: `Barcode value (e.g. a GTIN), at most ${ITEM_MAX_LENGTHS.barcode} characters.` },
    {
      name: 'reorderPoint',
      required: false,
      type: 'number',
      description: 'On-hand quantity below which low-stock is emitted; a plain decimal ≥ 0 such as 150 or 12.5. Empty: no reorder point.',
    },
    {
      name: 'trackingMode',
      required: false,
      type: 'enum',
      values: TRACKING_MODES,
      description: `Whether stock is tracked by lot: none or lot. Default ${ITEM_DEFAULT_TRACKING_MODE}. Changes only while the item holds no stock.`,
    },
  ],
  naturalKey: ['sku'],
  duplicateStrategies: DUPLICATE_STRATEGIES,
  maxFileBytes: MAX_FILE_BYTES,
  maxRows: MAX_ROWS,
  entity: 'item',
  parseRow: parseItemRow,
  naturalKeyOf: (row) => row.sku,
  references: () => [],
  // Read nothing ahead: only a trackingMode change reads the item's total, when it is decided.
  stock: { keysOf: () => ({ stockRecords: [], itemIds: [] }) },
  decide: decideItem,
});
