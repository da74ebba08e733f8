import type { NativeAttributeValue } from '@aws-sdk/lib-dynamodb';
import type { BuildProvenance, PageOf } from '../domain/records.ts';
import { batchGet, readPage, sortKeyRange } from '../../platform/dynamo/entity.ts';
import { BUILD_PREFIX, buildsOfSource } from './entities.ts';
import { consumedLinesKeys, fitsInPointer, provenanceItems, provenanceOf, storedBuildOf, type StoredBuild } from './build-provenance-items.ts';
import type { StoreWrite } from '../../platform/dynamo/transaction-writer.ts';

/**
 * Build provenance in the inventory table (docs/boms.md "How provenance is stored"; the layout:
 * lib/boms/store/build-provenance-items.ts): its writes, in one transaction or in several, and its
 * reads, which put a build's consumed lines back together.
 */

type StoredItem = Record<string, NativeAttributeValue>;

/**
 * The consumed lines one page of `GET /v1/boms/{id}/builds` holds at most, over all its builds
 * (a single larger build is still answered whole, alone on its page).
 */
export const BUILDS_PAGE_MAX_CONSUMED_LINES = 5000;

export class BuildProvenanceStore {
  constructor(private readonly tableName: string) {}

  /**
   * The writes of a build's provenance in groups of at most `maxActionsPerGroup` actions, to
   * commit in order, each in a transaction of its own (it may share it with other writes). The
   * slices come first, then the entries, then the pointer, in the last group: an entry is never
   * stored before the slices it points at, and the pointer (the build in the backward lot trace,
   * and what attachments check) only once everything is. Between groups the build may already be
   * listed under some of its stock records (whole: its slices are there), not yet under others.
   * A small build whose writes fit one group keeps its lines in the pointer (no slice). Every
   * put is conditioned on the item being new: a group committed twice fails, it never doubles.
   */
  provenanceWriteGroups(organizationId: string, build: BuildProvenance, maxActionsPerGroup: number): StoreWrite[][] {
    if (!Number.isInteger(maxActionsPerGroup) || maxActionsPerGroup < 1)
      throw new RangeError(`maxActionsPerGroup must be a positive integer, not ${maxActionsPerGroup}`);
    const writes = this.orderedWrites(organizationId, build, fitsInPointer(build, maxActionsPerGroup));
    const groups: StoreWrite[][] = [];
    for (let start = 0; start < writes.length; start += maxActionsPerGroup) groups.push(writes.slice(start, start + maxActionsPerGroup));
    return groups;
  }

  /**
   * The writes of a build's provenance as ONE group, for a build that commits in one transaction
   * (the builds import): its pointer and an entry per stock record drawn, plus its slices when it
   * consumed more lines than a pointer holds.
   */
  buildWrites(organizationId: string, build: BuildProvenance): StoreWrite[] {
    return this.orderedWrites(organizationId, build, fitsInPointer(build, Number.POSITIVE_INFINITY));
  }

  /**
   * The builds of a BOM that consumed one stock record, by build id, each whole: a Query of the
   * record's entries, then one BatchGetItem (per 100 keys, 8 at once) of the slices or pointers
   * of the builds whose entry does not hold every line. A page ends early, before `limit`
   * builds, once the next build's lines would pass `BUILDS_PAGE_MAX_CONSUMED_LINES`; `last` is
   * then the last build served, so the next page starts right after it.
   */
  async builds(organizationId: string, bomId: string, sourceStockRecordId: string, after: string | undefined, limit: number): Promise<PageOf<BuildProvenance>> {
    const page = await readPage({
      tableName: this.tableName,
      partition: { name: 'pk', value: buildsOfSource(organizationId, bomId, sourceStockRecordId) },
      sortKey: { name: 'sk', ...sortKeyRange(BUILD_PREFIX) },
      after,
      limit,
    });
    const served: StoredItem[] = [];
    let lines = 0;
    for (const item of page.items) {
      const count = storedBuildOf(item).consumedCount;
      if (served.length > 0 && lines + count > BUILDS_PAGE_MAX_CONSUMED_LINES) break;
      served.push(item);
      lines += count;
    }
    const cut = served.length < page.items.length;
    const items = await this.whole(organizationId, served.map(storedBuildOf));
    return { items, last: cut ? (served.at(-1)?.sk as string) : page.last, more: cut || page.more };
  }

  /** The builds with every consumed line, reading (in one BatchGetItem) the lines their items do not hold. */
  async whole(organizationId: string, builds: readonly StoredBuild[]): Promise<BuildProvenance[]> {
    const missing = builds.filter((build) => build.consumed === undefined);
    const found =
      missing.length === 0
        ? []
        : await batchGet(
            this.tableName,
            missing.flatMap((build) => consumedLinesKeys(organizationId, build)),
          );
    const byKey = new Map(found.map((item) => [keyString(item), item]));
    return builds.map((build) => {
      if (build.consumed) return provenanceOf(build.header, build.consumed);
      const consumed = consumedLinesKeys(organizationId, build).flatMap((key) => {
        const holder = byKey.get(keyString(key));
        // Slices are written before anything that names them, and a pointer holding lines with its entries: never absent.
        if (!holder) throw new Error(`Build ${build.header.id}: its consumed lines at ${key.pk} ${key.sk ?? ''} are missing`);
        return holder.consumed as BuildProvenance['consumed'];
      });
      if (consumed.length !== build.consumedCount)
        throw new Error(`Build ${build.header.id}: ${consumed.length} consumed lines stored, ${build.consumedCount} expected`);
      return provenanceOf(build.header, consumed);
    });
  }

  private orderedWrites(organizationId: string, build: BuildProvenance, linesInPointer: boolean): StoreWrite[] {
    const { slices, entries, pointer } = provenanceItems(organizationId, build, linesInPointer);
    return [...slices, ...entries, pointer].map((item) => ({
      item: { Put: { TableName: this.tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' } },
    }));
  }
}

function keyString(key: { pk?: unknown; sk?: unknown }): string {
  return `${String(key.pk)}\u0000${String(key.sk ?? '')}`;
}
