import type { Item } from '../../inventory/index.ts';
import type { Location } from '../../inventory/index.ts';
import { INVENTORY_RECORD_TYPES, type VersionedRecord } from '../../inventory/index.ts';
import type { StockRecord } from '../../inventory/index.ts';
import type { ReferencesRead, StockChangeReads, StockRead } from '../domain/changes/command.ts';
import type { ItemStock, StockEntry } from '../domain/records.ts';
import { batchGet, type Key } from '../../platform/dynamo/entity.ts';
import { stockEntryEntity } from './entities.ts';
import type { InventoryStore } from '../../inventory/store/index.ts';
import { inventoryRecordEntity, itemStockEntity, naturalKeyClaimEntity, naturalKeyClaimKey } from '../../inventory/store/index.ts';

/**
 * What a stock change over JSON reads before its transaction (docs/inventory.md "Writing stock
 * over JSON"), in as few requests as its keys allow, each a single BatchGetItem of at most 100
 * keys: (1) its items and locations, by natural key through the list entries that claim them
 * (they hold the whole record) or by id, with the claims of its lines' natural keys where the body
 * gives them; (2) its stock records and their items' totals (and the other claims). A stock
 * record's natural key is claimed by a keys-only entry naming its id, which never changes (records
 * are never deleted, an update never moves a record to another key): the ids read are kept, so
 * records read before are read by id in (2) directly; others take one more request.
 */

type StoredItem = Record<string, unknown>;
const keyString = (key: Key) => `${key.pk}\u0000${key.sk ?? ''}`;

/** Ids kept per process: a few hundred bytes each, enough for the places a warm function writes. */
const MAX_KNOWN_RECORD_IDS = 50_000;

/** Keys to read in one batch, each found item looked up by its key. */
class ReadPlan {
  private readonly keys = new Map<string, Key>();
  private found = new Map<string, StoredItem>();

  add(key: Key): string {
    const text = keyString(key);
    this.keys.set(text, key);
    return text;
  }

  async run(tableName: string): Promise<void> {
    const items = await batchGet(tableName, [...this.keys.values()]);
    this.found = new Map(items.map((item) => [keyString({ pk: item.pk as string, sk: item.sk as string }), item]));
  }

  get(key: string): StoredItem | undefined {
    return this.found.get(key);
  }
}

export class StockChangeStoreReads implements StockChangeReads {
  private readonly recordIds = new Map<string, string>();

  constructor(
    private readonly tableName: string,
    private readonly inventory: InventoryStore,
  ) {}

  async references(
    organizationId: string,
    wanted: { skus: string[]; itemIds: string[]; codes: string[]; locationIds: string[]; claimKeys: string[] },
  ): Promise<ReferencesRead> {
    const plan = new ReadPlan();
    // The list entry that claims the key holds the record; a record of older code may be claimed by a claim item only.
    const byEntry = (type: 'item' | 'location', naturalKeys: string[]) =>
      naturalKeys.map(
        (naturalKey) =>
          [
            naturalKey,
            plan.add(naturalKeyClaimKey(organizationId, type, naturalKey)),
            plan.add(naturalKeyClaimEntity.key({ organizationId, recordType: type, naturalKey })),
          ] as const,
      );
    const byId = (type: 'item' | 'location', ids: string[]) =>
      ids
        .filter((id) => id.startsWith(`${INVENTORY_RECORD_TYPES[type].idPrefix}_`))
        .map((id) => [id, plan.add(inventoryRecordEntity.key({ organizationId, recordType: type, id }))] as const);
    const skus = byEntry('item', unique(wanted.skus));
    const codes = byEntry('location', unique(wanted.codes));
    const itemIds = byId('item', unique(wanted.itemIds));
    const locationIds = byId('location', unique(wanted.locationIds));
    const claims = unique(wanted.claimKeys).map((key) => [key, plan.add(stockEntryEntity.key({ organizationId, key }))] as const);
    await plan.run(this.tableName);

    const records = <T>(pairs: ReadonlyArray<readonly [string, string]>, type: string) =>
      new Map(
        pairs.flatMap(([name, key]) => {
          const item = plan.get(key);
          return item && item.recordType === type && item.record !== undefined ? [[name, item.record as T] as const] : [];
        }),
      );
    const [itemsBySku, locationsByCode] = await Promise.all([
      this.byClaims<Item>(organizationId, 'item', skus, plan),
      this.byClaims<Location>(organizationId, 'location', codes, plan),
    ]);
    return {
      itemsBySku,
      itemsById: records<Item>(itemIds, 'item'),
      locationsByCode,
      locationsById: records<Location>(locationIds, 'location'),
      claims: new Map(claims.flatMap(([key, stored]) => (plan.get(stored) ? [[key, plan.get(stored)?.entry as StockEntry] as const] : []))),
    };
  }

  async stock(organizationId: string, wanted: { recordKeys: string[]; itemIds: string[]; claimKeys: string[] }): Promise<StockRead> {
    const plan = new ReadPlan();
    const recordKeys = unique(wanted.recordKeys);
    const known = (naturalKey: string) => this.recordIds.get(`${organizationId}\u0000${naturalKey}`);
    const records = recordKeys.flatMap((naturalKey) => {
      const id = known(naturalKey);
      return id === undefined ? [] : [[naturalKey, plan.add(inventoryRecordEntity.key({ organizationId, recordType: 'stock-record', id }))] as const];
    });
    const entries = recordKeys
      .filter((naturalKey) => known(naturalKey) === undefined)
      .map(
        (naturalKey) =>
          [
            naturalKey,
            plan.add(naturalKeyClaimKey(organizationId, 'stock-record', naturalKey)),
            plan.add(naturalKeyClaimEntity.key({ organizationId, recordType: 'stock-record', naturalKey })),
          ] as const,
      );
    const totals = unique(wanted.itemIds).map((itemId) => [itemId, plan.add(itemStockEntity.key({ organizationId, itemId }))] as const);
    const claims = unique(wanted.claimKeys).map((key) => [key, plan.add(stockEntryEntity.key({ organizationId, key }))] as const);
    await plan.run(this.tableName);

    const found = new Map<string, VersionedRecord<StockRecord>>();
    for (const [naturalKey, key] of records) {
      const item = plan.get(key);
      if (item) found.set(naturalKey, { record: item.record as StockRecord, version: item.version as number });
    }
    const claimed = new Map(
      entries.flatMap(([naturalKey, entry, olderClaim]) => {
        const id = (plan.get(entry)?.id ?? plan.get(olderClaim)?.id) as string | undefined;
        return id === undefined ? [] : [[naturalKey, id] as const];
      }),
    );
    if (claimed.size > 0) {
      const byId = await batchGet(
        this.tableName,
        [...claimed.values()].map((id) => inventoryRecordEntity.key({ organizationId, recordType: 'stock-record', id })),
      );
      const recordsById = new Map(byId.map((item) => [item.id as string, { record: item.record as StockRecord, version: item.version as number }]));
      for (const [naturalKey, id] of claimed) {
        const record = recordsById.get(id);
        if (!record) continue;
        found.set(naturalKey, record);
        this.remember(organizationId, naturalKey, id);
      }
    }
    return {
      records: found,
      totals: new Map(
        totals.flatMap(([itemId, key]) => {
          const item = plan.get(key);
          return item ? [[itemId, { record: item.itemStock as ItemStock, version: item.version as number }] as const] : [];
        }),
      ),
      claims: new Map(claims.flatMap(([key, stored]) => (plan.get(stored) ? [[key, plan.get(stored)?.entry as StockEntry] as const] : []))),
    };
  }

  /** Records by the claims read in `plan`: the entry's copy of the record, or (older code) the record its claim item names, read by id. */
  private async byClaims<T extends Item | Location>(
    organizationId: string,
    type: 'item' | 'location',
    claims: ReadonlyArray<readonly [string, string, string]>,
    plan: ReadPlan,
  ): Promise<Map<string, T>> {
    const found = new Map<string, T>();
    const olderIds = new Map<string, string>();
    for (const [naturalKey, entry, olderClaim] of claims) {
      const record = plan.get(entry)?.record;
      if (record !== undefined) found.set(naturalKey, record as T);
      else if (plan.get(olderClaim)) olderIds.set(naturalKey, plan.get(olderClaim)?.id as string);
    }
    if (olderIds.size === 0) return found;
    const records = await this.inventory.getByIds(organizationId, type, olderIds.values());
    for (const [naturalKey, id] of olderIds) {
      const record = records.get(id)?.record;
      if (record) found.set(naturalKey, record as T);
    }
    return found;
  }

  private remember(organizationId: string, naturalKey: string, id: string): void {
    if (this.recordIds.size >= MAX_KNOWN_RECORD_IDS) this.recordIds.delete(this.recordIds.keys().next().value as string);
    this.recordIds.set(`${organizationId}\u0000${naturalKey}`, id);
  }
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
