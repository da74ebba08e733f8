import { QueryCommand, type NativeAttributeValue } from '@aws-sdk/lib-dynamodb';
import type { BuildProvenance } from '../domain/boms/records.ts';
import type { Item } from '../domain/inventory/item.ts';
import type { LotTraceStorage } from '../domain/lots/trace-lot.ts';
import type { BuildPage, LotRef, TraceDirection } from '../domain/lots/trace-tree.ts';
import { documentClient } from './dynamodb-client.ts';
import { batchGet } from './entity.ts';
import { inventoryRecordEntity } from './entities.ts';
import { InventoryReadStore } from './inventory-reads.ts';
import { listSortKeys } from './inventory-lists.ts';
import { LOT_CONSUMED_BY, LOT_PRODUCED_BY, keys, lotKeys, type LotBuildsPrefix } from './keys.ts';
import { LOTS_INDEX } from './tables.ts';
import { MAX_BUILD_SOURCES } from '../domain/boms/bom.ts';

/**
 * The reads of a lot trace (docs/inventory.md "Tracing a lot"): the builds of a lot are one
 * Query of its partition in the lot-trace index (lib/store/tables.ts `LOTS_INDEX`), which is
 * eventually consistent; items are read by sku (a Query of the item list) and by id (BatchGetItem).
 */

type StoredItem = Record<string, NativeAttributeValue>;

/** The sort-key prefix of a lot's builds in the trace's direction: those that consumed it, or produced it. */
const PREFIX: Record<TraceDirection, LotBuildsPrefix> = { forward: LOT_CONSUMED_BY, backward: LOT_PRODUCED_BY };

export class LotTraceStore implements LotTraceStorage {
  private readonly items: InventoryReadStore;

  constructor(private readonly tableName: string) {
    this.items = new InventoryReadStore(tableName);
  }

  async itemBySku(organizationId: string, sku: string): Promise<Item | undefined> {
    return (await this.items.items(organizationId, { sku }, undefined, 1)).items[0];
  }

  async itemsByIds(organizationId: string, itemIds: ReadonlySet<string>): Promise<Map<string, Item>> {
    const found = await batchGet(this.tableName, [...itemIds].map((id) => inventoryRecordEntity.key({ organizationId, recordType: 'item', id })));
    return new Map(found.filter((stored) => stored.recordType === 'item').map((stored) => [(stored.record as Item).id, stored.record as Item]));
  }

  /**
   * Whether the item ever held a stock record of the lot: a Query of the item's stock-record
   * entries (its locations × lots), read only when no build names the lot.
   */
  async lotSeen(organizationId: string, lot: LotRef): Promise<boolean> {
    const prefix = listSortKeys.stockByItem(lot.itemId);
    let startKey: StoredItem | undefined;
    do {
      const page = await documentClient.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          FilterExpression: '#lot = :lot',
          ExpressionAttributeNames: { '#lot': 'lot' },
          ExpressionAttributeValues: { ':pk': keys.inventoryListOf(organizationId, 'stock-record'), ':prefix': prefix, ':lot': lot.lot },
          ProjectionExpression: 'pk',
          ConsistentRead: true,
          ExclusiveStartKey: startKey,
        }),
      );
      if ((page.Items ?? []).length > 0) return true;
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return false;
  }

  /**
   * Up to `limit` whole builds after `after`. A build that drew a lot from several stock records
   * has an entry per record, side by side; a page that ends inside one drops it and reads on.
   */
  async buildsFrom(organizationId: string, lot: LotRef, direction: TraceDirection, after: string | undefined, limit: number): Promise<BuildPage> {
    const prefix = PREFIX[direction];
    const builds: BuildPage['builds'] = [];
    let lower = after ?? `${prefix}#`;
    let entries = limit + 1;
    for (;;) {
      const page = await documentClient.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: LOTS_INDEX.indexName,
          KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :lower AND :upper',
          ExpressionAttributeNames: { '#pk': LOTS_INDEX.partitionKey.name, '#sk': LOTS_INDEX.sortKey.name },
          ExpressionAttributeValues: { ':pk': lotKeys.lotBuildsOf(organizationId, lot.itemId, lot.lot), ':lower': lower, ':upper': `${prefix}$` },
          Limit: entries,
        }),
      );
      const groups = groupByBuild(page.Items ?? []);
      const complete = page.LastEvaluatedKey ? groups.slice(0, -1) : groups;
      for (const build of complete) {
        if (builds.length === limit) return { builds, more: true };
        builds.push({ build, after: lotKeys.lotPositionAfterBuild(prefix, build.builtAt, build.id) });
      }
      if (!page.LastEvaluatedKey) return { builds, more: false };
      if (builds.length === limit) return { builds, more: true };
      // One build's entries filled the page: read enough for the most a build can have.
      if (complete.length === 0) entries += MAX_BUILD_SOURCES;
      else lower = builds.at(-1)?.after ?? lower;
    }
  }
}

/** The builds of a page of index entries, in order, each once. */
function groupByBuild(entries: readonly StoredItem[]): BuildProvenance[] {
  const builds: BuildProvenance[] = [];
  for (const entry of entries) {
    const build = entry.build as BuildProvenance;
    if (builds.at(-1)?.id !== build.id) builds.push(build);
  }
  return builds;
}
