import type { AuditChange } from '../../platform/audit/types.ts';
import { ApiError, NotFoundError, UniqueKeyTakenError, ValidationError } from '../../platform/core/errors.ts';
import type { CommandPlan } from '../../platform/write/ports.ts';
import { changeItem, changeLocation, changesStockRules, newItem, newLocation, type CatalogDecision, type ItemChanges, type ItemFields } from './catalog.ts';
import { itemView, type ItemView } from './item-reads.ts';
import type { Item, TrackingMode } from './item.ts';
import type { Location, LocationType } from './location.ts';
import { locationView, type LocationView } from './reads.ts';
import { newRecordId, type InventoryRecords, type InventoryRecordTypes, type VersionedRecord } from './records.ts';
import type { ItemStock } from './stock.ts';

/**
 * `POST /v1/items`, `PATCH /v1/items/{id}`, `POST /v1/locations`, `PATCH /v1/locations/{id}`
 * (docs/inventory.md "Writing the catalog"). Each decides through the catalog decisions the
 * `items` and `locations` import kinds use (./catalog.ts) and commits the record, its audit
 * entry, its events and the idempotency record in one transaction.
 *
 * Compare-and-set: every write is conditioned on the version read; `If-Match`, when sent, must
 * name that version (else 412, nothing written). A write that lost a race (the version moved,
 * a natural key was claimed meanwhile) is decided again on what is stored then: with a stale
 * `If-Match` that is the 412, without one the change is applied to the new version.
 *
 * A change of what stock writes decide on (a rename, the tracking mode, the status) also
 * rewrites the item's total over the version read, with the tracking mode as changed: a stock
 * write decided on the item as it was (its old sku, its old mode, active) is conditioned on that
 * total and can no longer commit; one that committed first moved the total and makes this
 * change be decided again (so a tracking-mode change sees the stock it received).
 */

/** The writes and reads the catalog commands need (lib/inventory/store/catalog-store.ts). */
export interface CatalogPorts<Write> {
  records: Pick<InventoryRecords<Write>, 'getById' | 'getByNaturalKeys' | 'createWrites' | 'updateWrites' | 'unchangedCheck'> & {
    /** The record moved to its new natural key: the old one freed, the new one claimed (NaturalKeyTakenError when taken), over `expectedVersion`. */
    renameWrites<T extends 'item' | 'location'>(
      organizationId: string,
      type: T,
      record: InventoryRecordTypes[T],
      previousNaturalKey: string,
      expectedVersion: number,
    ): Write[];
  };
  /** The item with its version and its stored total (with its version), in one read. */
  itemWithTotal(organizationId: string, itemId: string): Promise<{ item: VersionedRecord<Item>; total: VersionedRecord<ItemStock> | undefined } | undefined>;
  /** The item's total as it is, over the version read (none: still absent), now kept with `trackingMode`. */
  totalRewrite(
    organizationId: string,
    itemId: string,
    total: VersionedRecord<ItemStock> | undefined,
    trackingModeRead: TrackingMode,
    trackingMode: TrackingMode,
  ): Write;
  /** Whether any location names `code` as its parent. */
  hasChildren(organizationId: string, code: string): Promise<boolean>;
  clock?: () => Date;
}

export interface CreateItemInput extends ItemFields {
  sku: string;
  name: string;
}

export interface LocationInput {
  code?: string | undefined;
  name?: string | undefined;
  type?: LocationType | null | undefined;
  parentId?: string | null | undefined;
  parentCode?: string | null | undefined;
  status?: 'active' | 'archived' | undefined;
}

export interface CatalogResult<V> {
  view: V;
  version: number;
}

/** Ancestors a location's new parent chain is read through at most. */
export const MAX_LOCATION_DEPTH = 32;

/** How often a write that lost a race is decided again before the client is told to retry. */
const MAX_DECISIONS = 4;

export class PreconditionFailedError extends ApiError {
  constructor(version: number) {
    super(412, 'customer-api.precondition-failed', 'Precondition failed', {
      detail: `If-Match does not name the current version (${version}); read the record again and retry with its ETag.`,
      extensions: { version },
    });
    this.name = 'PreconditionFailedError';
  }
}

export class CatalogKeyTakenError extends ApiError {
  constructor(type: 'item' | 'location', key: string, holderId: string) {
    const [code, name, member] = type === 'item' ? ['sku-taken', 'sku', 'itemId'] : ['code-taken', 'code', 'locationId'];
    super(409, `customer-api.inventory.${code}`, 'Conflict', {
      detail: `Another ${type} of the organization has the ${name} '${key}'.`,
      extensions: { [member]: holderId },
    });
  }
}

/** Blank free text counts as empty, as an import's blank cell. */
function blankAsNull(value: string | null | undefined): string | null | undefined {
  return typeof value === 'string' && value.trim() === '' ? null : value;
}

function itemChanges(input: ItemChanges): ItemChanges {
  return { ...input, description: blankAsNull(input.description), category: blankAsNull(input.category) };
}

/** `If-Match` may list several ETags, or `*` for any current version; weak tags compare by their value. */
export function ifMatchHolds(ifMatch: string | undefined, version: number): boolean {
  if (ifMatch === undefined) return true;
  return ifMatch
    .split(',')
    .map((candidate) => candidate.trim().replace(/^W\//, ''))
    .some((candidate) => candidate === '*' || candidate === `"${version}"`);
}

/** A write condition failed: a record's version, or a natural key claimed meanwhile. */
function lostRace(error: unknown): boolean {
  return error instanceof UniqueKeyTakenError || (error instanceof ApiError && error.code === 'customer-api.request.conflict');
}

/** Runs `commit` (which decides and commits) again after a lost race, a few times. */
export async function decideAgainOnConflict<T>(commit: () => Promise<T>): Promise<T> {
  for (let decision = 1; ; decision += 1) {
    try {
      return await commit();
    } catch (error) {
      if (!lostRace(error)) throw error;
      if (decision >= MAX_DECISIONS)
        throw new ApiError(409, 'customer-api.request.conflict', 'Conflict', {
          detail: 'The record changed concurrently several times while the write was decided; retry the request.',
        });
    }
  }
}

function auditChanges(changed: readonly string[], previous: Record<string, unknown>, record: object): AuditChange[] {
  return changed.map((field) => ({
    field,
    from: previous[field] ?? null,
    to: (record as Record<string, unknown>)[field] ?? (field === 'status' ? 'active' : null),
  }));
}

export class CatalogCommands<Write> {
  constructor(private readonly ports: CatalogPorts<Write>) {}

  private now(): string {
    return (this.ports.clock?.() ?? new Date()).toISOString();
  }

  async createItem(organizationId: string, input: CreateItemInput): Promise<CommandPlan<CatalogResult<ItemView>, Write>> {
    const held = (await this.ports.records.getByNaturalKeys(organizationId, 'item', [input.sku])).get(input.sku);
    if (held) throw new CatalogKeyTakenError('item', input.sku, held.record.id);
    const { sku: _sku, ...fields } = itemChanges(input);
    const decision = newItem(input.sku, { ...fields, name: input.name }, { now: this.now(), newId: () => newRecordId('item') });
    const created = this.expect(decision, 'created');
    const item = created.record;
    return {
      writes: this.ports.records.createWrites(organizationId, 'item', item),
      audit: { kind: 'item.created', target: { kind: 'item', id: item.id }, summary: `Item ${item.sku} created`, changes: [] },
      events: created.events,
      result: { view: itemView(item, undefined, 1), version: 1 },
    };
  }

  async updateItem(organizationId: string, id: string, input: ItemChanges, ifMatch: string | undefined): Promise<CommandPlan<CatalogResult<ItemView>, Write>> {
    const found = await this.ports.itemWithTotal(organizationId, id);
    if (!found) throw new NotFoundError('inventory', 'No item with this id.');
    const { item: stored, total } = found;
    if (!ifMatchHolds(ifMatch, stored.version)) throw new PreconditionFailedError(stored.version);
    const existing = stored.record;
    const renamed = input.sku !== undefined && input.sku !== existing.sku ? input.sku : undefined;
    if (renamed !== undefined) {
      const held = (await this.ports.records.getByNaturalKeys(organizationId, 'item', [renamed])).get(renamed);
      if (held && held.record.id !== existing.id) throw new CatalogKeyTakenError('item', renamed, held.record.id);
    }
    const decision = changeItem(existing, itemChanges(input), { now: this.now(), onHand: () => total?.record.onHand ?? 0 });
    if (decision.action === 'refused')
      throw new ApiError(409, `customer-api.inventory.${decision.code}`, 'Conflict', {
        detail: decision.message,
        extensions: { onHand: total?.record.onHand ?? 0 },
      });
    if (decision.action === 'skipped')
      return { writes: [], events: [], result: { view: itemView(existing, total?.record, stored.version), version: stored.version } };
    const updated = this.expect(decision, 'updated');
    const item = updated.record;
    const writes =
      renamed === undefined
        ? this.ports.records.updateWrites(organizationId, 'item', item, stored.version)
        : this.ports.records.renameWrites(organizationId, 'item', item, existing.sku, stored.version);
    if (changesStockRules(updated.changed)) writes.push(this.ports.totalRewrite(organizationId, item.id, total, existing.trackingMode, item.trackingMode));
    const version = stored.version + 1;
    return {
      writes,
      audit: {
        kind: 'item.updated',
        target: { kind: 'item', id: item.id },
        summary: `Item ${item.sku} updated (${updated.changed.join(', ')})`,
        changes: auditChanges(updated.changed, updated.previous, item),
      },
      events: updated.events,
      result: { view: itemView(item, total?.record, version), version },
    };
  }

  async createLocation(
    organizationId: string,
    input: Omit<LocationInput, 'status'> & { code: string; name: string },
  ): Promise<CommandPlan<CatalogResult<LocationView>, Write>> {
    const held = (await this.ports.records.getByNaturalKeys(organizationId, 'location', [input.code])).get(input.code);
    if (held) throw new CatalogKeyTakenError('location', input.code, held.record.id);
    const parent = await this.parentOf(organizationId, input);
    const decision = newLocation(
      input.code,
      { name: input.name, type: input.type, parentCode: parent === undefined ? undefined : (parent?.record.code ?? null) },
      { now: this.now(), newId: () => newRecordId('location') },
    );
    const created = this.expect(decision, 'created');
    const location = created.record;
    const writes = this.ports.records.createWrites(organizationId, 'location', location);
    // The parent must still be there, as read, when the location commits under it.
    if (parent) writes.push(this.ports.records.unchangedCheck(organizationId, 'location', parent.record, parent.version));
    return {
      writes,
      audit: { kind: 'location.created', target: { kind: 'location', id: location.id }, summary: `Location ${location.code} created`, changes: [] },
      events: [],
      result: { view: locationView(location, 1), version: 1 },
    };
  }

  async updateLocation(
    organizationId: string,
    id: string,
    input: LocationInput,
    ifMatch: string | undefined,
  ): Promise<CommandPlan<CatalogResult<LocationView>, Write>> {
    const stored = await this.ports.records.getById(organizationId, 'location', id);
    if (!stored) throw new NotFoundError('inventory', 'No location with this id.');
    if (!ifMatchHolds(ifMatch, stored.version)) throw new PreconditionFailedError(stored.version);
    const existing = stored.record;
    const renamed = input.code !== undefined && input.code !== existing.code ? input.code : undefined;
    if (renamed !== undefined) {
      const held = (await this.ports.records.getByNaturalKeys(organizationId, 'location', [renamed])).get(renamed);
      if (held && held.record.id !== existing.id) throw new CatalogKeyTakenError('location', renamed, held.record.id);
      // Children name their parent by code: a parent is renamed once it has none.
      if (await this.ports.hasChildren(organizationId, existing.code))
        throw new ApiError(409, 'customer-api.inventory.location-has-children', 'Conflict', {
          detail: `Location "${existing.code}" encloses other locations, which name it by its code: move them first, then rename it.`,
        });
    }
    const parent = await this.parentOf(organizationId, input);
    const ancestors = parent ? await this.refuseCycle(organizationId, existing, parent, input) : [];
    const decision = changeLocation(
      existing,
      { name: input.name, type: input.type, parentCode: parent === undefined ? undefined : (parent?.record.code ?? null), code: renamed, status: input.status },
      { now: this.now() },
    );
    if (decision.action === 'skipped') return { writes: [], events: [], result: { view: locationView(existing, stored.version), version: stored.version } };
    const updated = this.expect(decision, 'updated');
    const location = updated.record;
    const writes =
      renamed === undefined
        ? this.ports.records.updateWrites(organizationId, 'location', location, stored.version)
        : this.ports.records.renameWrites(organizationId, 'location', location, existing.code, stored.version);
    // A new parent chain holds only while its ancestors stay as read (another write may move one under this location meanwhile).
    if (updated.changed.includes('parentCode'))
      for (const ancestor of ancestors) writes.push(this.ports.records.unchangedCheck(organizationId, 'location', ancestor.record, ancestor.version));
    const version = stored.version + 1;
    return {
      writes,
      audit: {
        kind: 'location.updated',
        target: { kind: 'location', id: location.id },
        summary: `Location ${location.code} updated (${updated.changed.join(', ')})`,
        changes: auditChanges(updated.changed, updated.previous, location),
      },
      events: [],
      result: { view: locationView(location, version), version },
    };
  }

  /** The parent a body names: undefined when it names none, null when it clears it; an unknown one is a 400. */
  private async parentOf(organizationId: string, input: LocationInput): Promise<VersionedRecord<Location> | null | undefined> {
    if (input.parentId === null || input.parentCode === null) return null;
    if (input.parentId !== undefined) {
      const found = await this.ports.records.getById(organizationId, 'location', input.parentId);
      if (!found) throw unknownParent('/parentId', `No location with id ${input.parentId}.`);
      return found;
    }
    if (input.parentCode !== undefined) {
      const found = (await this.ports.records.getByNaturalKeys(organizationId, 'location', [input.parentCode])).get(input.parentCode);
      if (!found) throw unknownParent('/parentCode', `No location with code "${input.parentCode}".`);
      return found;
    }
    return undefined;
  }

  /** The new parent's chain up to the root, read level by level; the location itself in it is a cycle (400). */
  private async refuseCycle(
    organizationId: string,
    location: Location,
    parent: VersionedRecord<Location>,
    input: LocationInput,
  ): Promise<VersionedRecord<Location>[]> {
    const pointer = input.parentId !== undefined ? '/parentId' : '/parentCode';
    const chain: VersionedRecord<Location>[] = [];
    let current: VersionedRecord<Location> | undefined = parent;
    while (current) {
      if (current.record.id === location.id)
        throw new ValidationError(
          [{ location: 'body', pointer, code: 'cycle', message: `Location "${location.code}" would become its own ancestor.` }],
          'The parent would make a cycle; see `errors`.',
        );
      chain.push(current);
      if (chain.length > MAX_LOCATION_DEPTH)
        throw new ValidationError([{ location: 'body', pointer, code: 'too-deep', message: `A location tree is at most ${MAX_LOCATION_DEPTH} levels deep.` }]);
      const parentCode: string | null = current.record.parentCode;
      if (parentCode === null) break;
      current = (await this.ports.records.getByNaturalKeys(organizationId, 'location', [parentCode])).get(parentCode);
    }
    return chain;
  }

  private expect<R, A extends 'created' | 'updated'>(decision: CatalogDecision<R>, action: A): Extract<CatalogDecision<R>, { action: A }> {
    if (decision.action !== action) throw new Error(`The catalog decision is ${decision.action}, not ${action}`);
    return decision as Extract<CatalogDecision<R>, { action: A }>;
  }
}

function unknownParent(pointer: string, message: string): ValidationError {
  return new ValidationError([{ location: 'body', pointer, code: 'unknown-location', message }], 'The parent location is unknown; see `errors`.');
}
