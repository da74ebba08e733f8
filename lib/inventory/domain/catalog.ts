import { ApiError } from '../../platform/core/errors.ts';
import type { EventDraft } from '../../platform/events/types.ts';
import { ITEM_CHANGEABLE_FIELDS, ITEM_DEFAULT_TRACKING_MODE, ITEM_DEFAULT_UNIT, type Item, type RecordStatus, type TrackingMode } from './item.ts';
import { LOCATION_DEFAULT_TYPE, type Location, type LocationType } from './location.ts';

/**
 * The catalog decisions (docs/inventory.md "Writing the catalog"): what creating or changing an
 * item or a location does, made by ONE piece of code for both doors, the `items` / `locations`
 * import kinds (lib/imports/domain/items-kind.ts, locations-kind.ts) and the JSON routes
 * (./catalog-writes.ts): the field defaults, what "empty" means, which fields changed, the
 * tracking-mode rule and the `item.created` / `item.updated` events with `changedFields` and
 * `previous`.
 *
 * Fields: `undefined` leaves a field as it is (an absent column, a member not sent), `null`
 * clears it (an empty cell, a merge-patch `null`): to `null`, or to its default where it cannot
 * be null (`unit` → `ea`, `trackingMode` → `none`, a location's `type` → `bin`).
 * Only the JSON door renames (`sku`, `code`) and archives (`status`); an import never does.
 */

/** What a row or a request may set on an item beside its sku. */
export interface ItemFields {
  name?: string | undefined;
  unit?: string | null | undefined;
  description?: string | null | undefined;
  category?: string | null | undefined;
  barcode?: string | null | undefined;
  reorderPoint?: number | null | undefined;
  trackingMode?: TrackingMode | null | undefined;
}

/** What a PATCH may change besides: the sku (a rename) and the status (archive, unarchive). */
export interface ItemChanges extends ItemFields {
  sku?: string | undefined;
  status?: RecordStatus | undefined;
}

/** The fields an `item.updated` may name in `changedFields` and `previous`, in that order. */
export const ITEM_UPDATABLE_FIELDS = ['sku', ...ITEM_CHANGEABLE_FIELDS, 'status'] as const;

export type ItemUpdatableField = (typeof ITEM_UPDATABLE_FIELDS)[number];

/** The value an empty field takes, per field a row or request can set (`name` is required, so never empty). */
export const ITEM_EMPTY_VALUES = {
  name: '',
  unit: ITEM_DEFAULT_UNIT,
  description: null,
  category: null,
  barcode: null,
  reorderPoint: null,
  trackingMode: ITEM_DEFAULT_TRACKING_MODE,
} satisfies Pick<Item, (typeof ITEM_CHANGEABLE_FIELDS)[number]>;

/** Location fields an update can change (code is the key). */
export const LOCATION_CHANGEABLE_FIELDS = ['name', 'type', 'parentCode'] as const;

export const LOCATION_UPDATABLE_FIELDS = ['code', ...LOCATION_CHANGEABLE_FIELDS, 'status'] as const;

export const LOCATION_EMPTY_VALUES = { name: '', type: LOCATION_DEFAULT_TYPE, parentCode: null } satisfies Pick<
  Location,
  (typeof LOCATION_CHANGEABLE_FIELDS)[number]
>;

export interface LocationFields {
  name?: string | undefined;
  type?: LocationType | null | undefined;
  parentCode?: string | null | undefined;
}

export interface LocationChanges extends LocationFields {
  code?: string | undefined;
  status?: RecordStatus | undefined;
}

/** `patch` over `base`: `undefined` keeps a field, `null` sets its empty value. */
export function applyFields<Rec extends object, F extends keyof Rec>(
  base: Rec,
  patch: { readonly [K in F]?: Rec[K] | null | undefined },
  emptyValues: { readonly [K in F]: Rec[K] },
): Rec {
  const next = { ...base };
  for (const field of Object.keys(emptyValues) as F[]) {
    const value = patch[field];
    if (value === undefined) continue;
    next[field] = value === null ? emptyValues[field] : (value as Rec[F]);
  }
  return next;
}

/** The fields (in the given order) whose values differ between two records; an absent `status` is `active`. */
export function changedFields<Rec extends object, F extends keyof Rec & string>(before: Rec, after: Rec, fields: readonly F[]): F[] {
  return fields.filter((field) => valueOf(before, field) !== valueOf(after, field));
}

function valueOf<Rec extends object>(record: Rec, field: keyof Rec & string): unknown {
  const value = record[field];
  return field === 'status' && value === undefined ? 'active' : value;
}

/** An active record is stored without `status` (as before archiving existed); an archived one with it. */
function withStatus<Rec extends { status?: 'archived' }>(record: Rec, status: RecordStatus | undefined): Rec {
  if (status === undefined) return record;
  const { status: _dropped, ...rest } = record;
  return (status === 'archived' ? { ...rest, status: 'archived' } : rest) as Rec;
}

export type CatalogDecision<Rec> =
  | { action: 'created'; record: Rec; events: EventDraft[] }
  | { action: 'updated'; record: Rec; changed: string[]; previous: Record<string, unknown>; events: EventDraft[] }
  | { action: 'skipped' }
  | { action: 'refused'; field: string; code: string; message: string; value: unknown };

/** A new item: every field not given takes its empty value. */
export function newItem(sku: string, fields: ItemFields & { name: string }, context: { now: string; newId: () => string }): CatalogDecision<Item> {
  const defaults: Item = {
    id: context.newId(),
    sku,
    // The empty state of every changeable field, in field order; the name replaces ''.
    ...ITEM_EMPTY_VALUES,
    name: fields.name,
    createdAt: context.now,
    updatedAt: context.now,
  };
  const item = applyFields(defaults, fieldsOf(fields), ITEM_EMPTY_VALUES);
  return { action: 'created', record: item, events: [{ type: 'item.created', data: { item: { ...item } }, occurredAt: context.now }] };
}

/**
 * An existing item changed: nothing (`skipped`) when no field differs; refused while it holds
 * stock when `trackingMode` would change (`onHand` reads the item's total: a stock ledger's in an
 * import chunk, the stored total over JSON); else its new version and `item.updated`.
 */
export function changeItem(existing: Item, changes: ItemChanges, context: { now: string; onHand: () => number }): CatalogDecision<Item> {
  const merged = withStatus({ ...applyFields(existing, fieldsOf(changes), ITEM_EMPTY_VALUES), sku: changes.sku ?? existing.sku }, changes.status);
  const changed = changedFields(existing, merged, ITEM_UPDATABLE_FIELDS);
  if (changed.length === 0) return { action: 'skipped' };
  if (changed.includes('trackingMode')) {
    const onHand = context.onHand();
    if (onHand > 0)
      return {
        action: 'refused',
        field: 'trackingMode',
        code: 'tracking-change-with-stock',
        value: changes.trackingMode ?? null,
        message: `Item "${existing.sku}" holds ${onHand} on hand: its trackingMode stays ${existing.trackingMode} until every stock record of it is at 0 (adjust or consume the stock first).`,
      };
  }
  const item: Item = { ...merged, updatedAt: context.now };
  const previous = Object.fromEntries(changed.map((field) => [field, valueOf(existing, field)]));
  const event: EventDraft = { type: 'item.updated', data: { item: { ...item }, changedFields: changed, previous }, occurredAt: context.now };
  return { action: 'updated', record: item, changed, previous, events: [event] };
}

/** Whether a change touches what stock writes decide on (a rename, the tracking mode, the status): the item's total is then rewritten with it. */
export function changesStockRules(changed: readonly string[]): boolean {
  return changed.some((field) => field === 'sku' || field === 'trackingMode' || field === 'status');
}

export function newLocation(code: string, fields: LocationFields & { name: string }, context: { now: string; newId: () => string }): CatalogDecision<Location> {
  const defaults: Location = {
    id: context.newId(),
    code,
    name: fields.name,
    type: LOCATION_DEFAULT_TYPE,
    parentCode: null,
    createdAt: context.now,
    updatedAt: context.now,
  };
  return { action: 'created', record: applyFields(defaults, locationFieldsOf(fields), LOCATION_EMPTY_VALUES), events: [] };
}

/** Locations emit no events (docs/events.md "Catalog"). */
export function changeLocation(existing: Location, changes: LocationChanges, context: { now: string }): CatalogDecision<Location> {
  const merged = withStatus(
    { ...applyFields(existing, locationFieldsOf(changes), LOCATION_EMPTY_VALUES), code: changes.code ?? existing.code },
    changes.status,
  );
  const changed = changedFields(existing, merged, LOCATION_UPDATABLE_FIELDS);
  if (changed.length === 0) return { action: 'skipped' };
  const previous = Object.fromEntries(changed.map((field) => [field, valueOf(existing, field)]));
  return { action: 'updated', record: { ...merged, updatedAt: context.now }, changed, previous, events: [] };
}

function fieldsOf(fields: ItemFields) {
  const { name, unit, description, category, barcode, reorderPoint, trackingMode } = fields;
  return { name, unit, description, category, barcode, reorderPoint, trackingMode };
}

function locationFieldsOf(fields: LocationFields) {
  const { name, type, parentCode } = fields;
  return { name, type, parentCode };
}

/** The refusal of stock in (a receipt, an increase, a transfer in, a reservation, a build's output) at an archived item or location. */
export const ARCHIVED_CODES = { item: 'item-archived', location: 'location-archived' } as const;

/** Which of a line's item and location is archived, the item first; undefined when neither is. */
export function archivedOf(item: { status?: 'archived' }, location: { status?: 'archived' } | undefined): 'item' | 'location' | undefined {
  if (item.status === 'archived') return 'item';
  if (location?.status === 'archived') return 'location';
  return undefined;
}

export function archivedMessage(what: 'item' | 'location', name: string): string {
  return `${what === 'item' ? 'Item' : 'Location'} "${name}" is archived: it takes no stock in (stock may still leave it); unarchive it with PATCH first.`;
}

/** 409 `customer-api.inventory.item-archived` / `location-archived` of a JSON write, naming its lines. */
export class ArchivedError extends ApiError {
  constructor(what: 'item' | 'location', name: string, lines: number[] = []) {
    super(409, `customer-api.inventory.${ARCHIVED_CODES[what]}`, 'Conflict', {
      detail: archivedMessage(what, name),
      ...(lines.length > 0 ? { extensions: { lines: lines.map((line) => ({ line })) } } : {}),
    });
    this.name = 'ArchivedError';
  }
}
