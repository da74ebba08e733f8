import { QueryCommand, type NativeAttributeValue } from '@aws-sdk/lib-dynamodb';
import type { Item } from '../../inventory/index.ts';
import type { LotTraceStorage } from '../domain/trace-lot.ts';
import type { BuildPage, LotRef, TraceDirection } from '../domain/trace-tree.ts';
import { documentClient } from '../../platform/aws/dynamodb-client.ts';
import { batchGet } from '../../platform/dynamo/entity.ts';
import { InventoryReadStore } from '../../inventory/store/index.ts';
import { inventoryListOf, inventoryRecordEntity, listSortKeys } from '../../inventory/store/index.ts';
import { LOT_CONSUMED_BY, LOT_PRODUCED_BY, lotKeys, type LotBuildsPrefix } from '../../boms/store/index.ts';
import { LOTS_INDEX } from '../../platform/storage/tables.ts';
import { storedBuildOf, type StoredBuild } from '../../boms/store/index.ts';
import { BuildProvenanceStore } from '../../boms/store/index.ts';

/**
 * The reads of a lot trace (docs/inventory.md "Tracing a lot"): the builds of a lot are a Query
 * of its partition in the lot-trace index (lib/platform/storage/tables.ts `LOTS_INDEX`), which is
 * eventually consistent, and backward the consumed lines of large builds (BatchGetItem of their
 * slices); items are read by sku (a Query of the item list) and by id (BatchGetItem).
 */

type StoredItem = Record<string, NativeAttributeValue>;

/** The sort-key prefix of a lot's builds in the trace's direction: those that consumed it, or produced it. */
const PREFIX: Record<TraceDirection, LotBuildsPrefix> = { forward: LOT_CONSUMED_BY, backward: LOT_PRODUCED_BY };

export class LotTraceStore implements LotTraceStorage {
  private readonly items: InventoryReadStore;
  private readonly provenance: BuildProvenanceStore;

  constructor(private readonly tableName: string) {
    this.items = new InventoryReadStore(tableName);
    this.provenance = new BuildProvenanceStore(tableName);
  }

  async itemBySku(organizationId: string, sku: string): Promise<Item | undefined> {
    return (await this.items.items(organizationId, { sku }, undefined, 1)).items[0];
  }

  async itemsByIds(organizationId: string, itemIds: ReadonlySet<string>): Promise<Map<string, Item>> {
    const found = await batchGet(
      this.tableName,
      [...itemIds].map((id) => inventoryRecordEntity.key({ organizationId, recordType: 'item', id })),
    );
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
          ExpressionAttributeValues: { ':pk': inventoryListOf(organizationId, 'stock-record'), ':prefix': prefix, ':lot': lot.lot },
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
   * Up to `limit` whole builds after `after`, from the lot's partition of the index: a build that
   * drew the lot from several stock records has an entry per record, side by side, so entries are
   * read on (from where the last Query stopped, never twice) until `limit` builds are complete.
   * Forward needs only each build's header, which every entry holds; backward needs every line
   * the build consumed: its pointer holds them, or says which slices do, read for the whole page
   * in one BatchGetItem (per 100 slices, 8 at once).
   */
  async buildsFrom(organizationId: string, lot: LotRef, direction: TraceDirection, after: string | undefined, limit: number): Promise<BuildPage> {
    const prefix = PREFIX[direction];
    const entries: StoredItem[] = [];
    let startKey: StoredItem | undefined;
    let complete: StoredBuild[] = [];
    for (;;) {
      const page = await documentClient.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: LOTS_INDEX.indexName,
          KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :lower AND :upper',
          ExpressionAttributeNames: { '#pk': LOTS_INDEX.partitionKey.name, '#sk': LOTS_INDEX.sortKey.name },
          ExpressionAttributeValues: {
            ':pk': lotKeys.lotBuildsOf(organizationId, lot.itemId, lot.lot),
            ':lower': after ?? `${prefix}#`,
            ':upper': `${prefix}$`,
          },
          ExclusiveStartKey: startKey,
          // The builds still missing and one more; then, while one build's entries run long, twice what was read.
          Limit: Math.max(limit + 1 - complete.length, entries.length),
        }),
      );
      entries.push(...(page.Items ?? []));
      startKey = page.LastEvaluatedKey;
      const builds = buildsOf(entries);
      // Unless the partition ended, the last build may go on in the entries not read yet.
      complete = startKey ? builds.slice(0, -1) : builds;
      if (startKey && complete.length < limit) continue;
      const served = complete.slice(0, limit);
      const traced = direction === 'forward' ? served.map((build) => build.header) : await this.provenance.whole(organizationId, served);
      return {
        builds: traced.map((build) => ({ build, after: lotKeys.lotPositionAfterBuild(prefix, build.builtAt, build.id) })),
        more: startKey !== undefined || complete.length > limit,
      };
    }
  }
}

/** The builds of a run of index entries, in order, each once (as its first entry holds it). */
function buildsOf(entries: readonly StoredItem[]): StoredBuild[] {
  const builds: StoredBuild[] = [];
  for (const entry of entries) {
    const build = storedBuildOf(entry);
    if (builds.at(-1)?.header.id !== build.header.id) builds.push(build);
  }
  return builds;
}
