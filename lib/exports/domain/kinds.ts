import { RESERVATION_STATUSES } from '../../reservations/index.ts';

/**
 * The export kinds (docs/exports.md "Kinds"), each declared ONCE: its columns (the file's header,
 * in order, with the type each cell is written as) and its filters. `GET /v1/exports/kinds`, the
 * validation of a submission's filters, the worker's writer and the docs' tables all read this
 * list. Plain data: the HTTP functions bundle it without any reader or writer.
 */

export type ExportColumnType = 'string' | 'number' | 'boolean' | 'date-time';
export type ExportFilterType = 'string' | 'boolean' | 'date-time';

export interface ExportColumn {
  name: string;
  type: ExportColumnType;
  description: string;
}

export interface ExportFilter {
  name: string;
  type: ExportFilterType;
  required: boolean;
  description: string;
  /** The only values a `string` filter takes, when it names one of a fixed set (anything else is a 400, not an empty file). */
  values?: readonly string[];
}

/**
 * `exact`: the file is the state as of `asOfEventId` (every change up to it, none after), however
 * many writes run during the export. `live`: rows are read as the export reaches them and may
 * include changes after `asOfEventId` (docs/exports.md "Snapshots").
 */
export type SnapshotGuarantee = 'exact' | 'live';

export interface ExportKindDeclaration {
  kind: string;
  title: string;
  description: string;
  columns: readonly ExportColumn[];
  filters: readonly ExportFilter[];
  snapshot: SnapshotGuarantee;
}

const text = (name: string, description: string): ExportColumn => ({ name, type: 'string', description });
const number = (name: string, description: string): ExportColumn => ({ name, type: 'number', description });
const time = (name: string, description: string): ExportColumn => ({ name, type: 'date-time', description });
const optional = (name: string, type: ExportFilterType, description: string): ExportFilter => ({ name, type, required: false, description });

const SKU_FILTER = optional('sku', 'string', 'Only rows of the item with this SKU.');
const LOCATION_FILTER = optional('locationCode', 'string', 'Only rows of the location with this code.');
const FROM_FILTER = optional('fromUtc', 'date-time', 'Only rows at or after this time (inclusive).');
const TO_FILTER = optional('toUtc', 'date-time', 'Only rows before this time (exclusive).');

export const EXPORT_KINDS = [
  {
    kind: 'items',
    title: 'Items',
    description: 'Every item, in SKU order; exactly the columns of the `items` import, so the file imports again unchanged.',
    columns: [
      text('sku', 'Stock keeping unit (the natural key).'),
      text('name', 'Item name.'),
      text('unit', 'Unit of measure.'),
      text('description', 'Free text; empty when none.'),
      text('category', 'Category; empty when none.'),
      text('barcode', 'Barcode value; empty when none.'),
      number('reorderPoint', 'Reorder point; empty when none.'),
      text('trackingMode', '`none` or `lot`.'),
    ],
    filters: [SKU_FILTER],
    snapshot: 'exact',
  },
  {
    kind: 'locations',
    title: 'Locations',
    description: 'Every location, in code order; exactly the columns of the `locations` import.',
    columns: [
      text('code', 'Location code (the natural key).'),
      text('name', 'Location name.'),
      text('type', '`warehouse`, `zone` or `bin`.'),
      text('parentCode', 'Code of the parent location; empty for a root.'),
    ],
    filters: [optional('code', 'string', 'Only the location with this code.')],
    snapshot: 'live',
  },
  {
    kind: 'boms',
    title: 'Bills of materials',
    description: 'The current revision of every BOM, one row per component line; exactly the columns of the `boms` import.',
    columns: [
      text('bomCode', 'BOM code (the natural key).'),
      text('name', 'BOM name.'),
      text('targetSku', 'SKU of the item the BOM builds.'),
      text('componentSku', 'SKU of the component of this line.'),
      number('quantity', 'Component quantity per unit built.'),
      text('unit', 'Unit of the line; empty when the component’s.'),
      number('scrapPercent', 'Expected scrap in percent; empty when none.'),
      text('notes', 'Notes of the line; empty when none.'),
    ],
    filters: [optional('bomCode', 'string', 'Only the BOM with this code.')],
    snapshot: 'live',
  },
  {
    kind: 'stock-records',
    title: 'Stock records',
    description: 'On-hand, reserved and available quantity per item × location × lot, exact as of `asOfEventId`.',
    columns: [
      text('stockRecordId', 'Stock record id.'),
      text('itemId', 'Item id.'),
      text('sku', 'Item SKU.'),
      text('locationId', 'Location id.'),
      text('locationCode', 'Location code.'),
      text('lot', 'Lot; empty when the item is not lot-tracked.'),
      number('quantity', 'On-hand quantity as of `asOfEventId`.'),
      time('updatedAt', 'Last change up to `asOfEventId` (UTC).'),
      // Added after the others, so files read by column position keep their columns.
      number('reserved', 'Held by active reservations as of `asOfEventId`; 0 until reservations are written.'),
      number('available', '`quantity` − `reserved` as of `asOfEventId`; negative only after a count set on-hand below what is reserved.'),
    ],
    filters: [SKU_FILTER, LOCATION_FILTER, optional('nonZero', 'boolean', 'Only records whose quantity is not zero.')],
    snapshot: 'exact',
  },
  {
    kind: 'reservations',
    title: 'Reservations',
    description: 'One row per reservation line, oldest reservation first, exact as of `asOfEventId`.',
    columns: [
      text('reservationId', 'Reservation id (`res_…`).'),
      text('reference', 'Reference of the reservation.'),
      text('status', '`active`, `released`, `fulfilled` or `expired`, as of `asOfEventId`.'),
      time('expiresAt', 'When what is left is released (UTC).'),
      time('createdAt', 'When the reservation was created (UTC).'),
      time('updatedAt', 'Last change of the reservation up to `asOfEventId` (UTC).'),
      text('lineId', 'Reservation line id (`rsl_…`).'),
      text('itemId', 'Item id.'),
      text('sku', 'Item SKU.'),
      text('locationId', 'Location id.'),
      text('locationCode', 'Location code.'),
      text('lot', 'Lot; empty when the item is not lot-tracked.'),
      text('stockRecordId', 'The stock record the line holds.'),
      number('quantity', 'Held at creation.'),
      number('fulfilledQuantity', 'Shipped up to `asOfEventId`.'),
      number('releasedQuantity', 'Released (by a release or the expiry) up to `asOfEventId`.'),
      number('left', '`quantity` − `fulfilledQuantity` − `releasedQuantity`: still held as of `asOfEventId`.'),
    ],
    filters: [
      { ...optional('status', 'string', 'Only reservations with this status as of `asOfEventId`.'), values: RESERVATION_STATUSES },
      optional('reference', 'string', 'Only the reservation with this reference.'),
      { ...SKU_FILTER, description: 'Only lines of the item with this SKU.' },
      { ...LOCATION_FILTER, description: 'Only lines at the location with this code.' },
    ],
    snapshot: 'exact',
  },
  {
    kind: 'movements',
    title: 'Movements',
    description: 'The stock ledger, newest first (as `GET /v1/movements`).',
    columns: [
      text('movementId', 'Movement id.'),
      text('type', 'receipt, adjustment, transfer, count, consumption or production.'),
      text('itemId', 'Item id.'),
      text('sku', 'Item SKU.'),
      text('fromLocationId', 'Location the stock left; empty when none.'),
      text('toLocationId', 'Location the stock entered; empty when none.'),
      number('quantity', 'Quantity moved (positive).'),
      text('lot', 'Lot; empty when none.'),
      text('reference', 'Reference of the movement; empty when none.'),
      time('occurredAt', 'When the movement happened (UTC).'),
    ],
    filters: [FROM_FILTER, TO_FILTER, SKU_FILTER, LOCATION_FILTER],
    snapshot: 'live',
  },
  {
    kind: 'audit-events',
    title: 'Audit events',
    description: 'The audit log, newest first (as `GET /v1/audit/events`).',
    columns: [
      text('id', 'Audit event id.'),
      time('occurredAt', 'When it happened (UTC).'),
      text('kind', 'Audit kind, e.g. `import.submitted`.'),
      text('actorType', '`api-key` or `system`.'),
      text('actorId', 'Key id or system component.'),
      text('targetKind', 'Kind of the record acted on.'),
      text('targetId', 'Id of the record acted on.'),
      text('summary', 'One-line summary.'),
      text('changes', 'The changes as JSON (`[{ field, from, to }]`).'),
      text('traceId', 'Trace id of the request; empty when none.'),
      text('idempotencyKey', 'Idempotency-Key of the request; empty when none.'),
    ],
    filters: [optional('kind', 'string', 'Only audit events of this kind.'), FROM_FILTER, TO_FILTER],
    snapshot: 'live',
  },
  {
    kind: 'import-row-errors',
    title: 'Import row errors',
    description:
      'Each failed row of one import job as it was in the file (the columns of the job’s kind), plus where and why it failed: fix the file and submit it again.',
    columns: [
      number('rowNumber', 'Row number in the file (1 = first data row).'),
      text('errorColumn', 'Column of the error; empty for a row-level error.'),
      text('errorCode', 'Row error code, e.g. `unknown-sku`.'),
      text('errorMessage', 'What is wrong.'),
    ],
    filters: [{ name: 'importJobId', type: 'string', required: true, description: 'The import job whose failed rows to export.' }],
    snapshot: 'live',
  },
] as const satisfies readonly ExportKindDeclaration[];

export type ExportKind = (typeof EXPORT_KINDS)[number]['kind'];

export const EXPORT_KIND_NAMES = EXPORT_KINDS.map((declaration) => declaration.kind);

export function exportKind(kind: string): ExportKindDeclaration | undefined {
  return EXPORT_KINDS.find((declaration) => declaration.kind === kind);
}
