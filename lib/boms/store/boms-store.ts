import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { BomRevision, BomListFilter, Bom, BomRevisionListing, BomStorage, BomSummary, BuildProvenance, PageOf } from '../domain/records.ts';
import { documentClient } from '../../platform/aws/dynamodb-client.ts';
import { batchGet, readFilteredPage, readPage, sortKeyRange } from '../../platform/dynamo/entity.ts';
import { naturalKeyClaimEntity } from '../../inventory/store/index.ts';
import { BOM_LIST_PREFIX, REVISION_NUMBER_PREFIX, bomEntity, bomRevisionEntity, bomRevisionsOf, bomsOf } from './entities.ts';
import { BOM_CODE_CLAIM, BomWritesStore, searchable } from './bom-writes-store.ts';
import { BuildProvenanceStore } from './build-provenance-store.ts';
import type { StoreWrite } from '../../platform/dynamo/transaction-writer.ts';

/**
 * BOMs, their revisions and (through BuildProvenanceStore) build provenance in the inventory
 * table (docs/boms.md "Model"). A BOM is two items: the detail by id, and a small entry in its
 * organization's list (ordered by id, so by creation: a page never skips or repeats a BOM
 * created meanwhile). Lists filter the entries with a bounded read per page (docs/boms.md "Listing").
 */

/** List entries examined per page at most, whatever the filters keep. */
export const BOM_LIST_READ_BUDGET = 1000;

export class BomsStore extends BomWritesStore implements BomStorage<StoreWrite> {
  private readonly provenance = new BuildProvenanceStore(this.tableName);

  /** By code (two batched reads: the code claims, then the BOMs they name); unknown codes are absent. */
  async getByCodes(organizationId: string, codes: Iterable<string>): Promise<Map<string, { record: Bom; version: number }>> {
    const claims = await batchGet(
      this.tableName,
      [...new Set(codes)].map((code) => naturalKeyClaimEntity.key({ organizationId, recordType: BOM_CODE_CLAIM, naturalKey: code })),
    );
    const boms = await batchGet(
      this.tableName,
      claims.map((claim) => bomEntity.key({ organizationId, bomId: claim.id as string })),
    );
    return new Map(boms.map((item) => [(item.bom as Bom).code, { record: item.bom as Bom, version: item.version as number }]));
  }

  async list(organizationId: string, filter: BomListFilter, after: string | undefined, limit: number): Promise<PageOf<BomSummary>> {
    const conditions: string[] = [];
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = {};
    if (!filter.includeArchived) {
      conditions.push('#archived = :false');
      names['#archived'] = 'archived';
      values[':false'] = false;
    }
    if (filter.status !== undefined) {
      conditions.push('#status = :status');
      names['#status'] = 'status';
      values[':status'] = filter.status;
    }
    if (filter.targetItemId !== undefined) {
      conditions.push('#target = :target');
      names['#target'] = 'targetItemId';
      values[':target'] = filter.targetItemId;
    }
    if (filter.q !== undefined) {
      // Within the code or within the name, never across them. Entries written before the two
      // were kept apart (one `searchText`, schema version 1) match as they did until rewritten.
      conditions.push('(contains(#searchCode, :q) OR contains(#searchName, :q) OR (attribute_not_exists(#searchCode) AND contains(#searchText, :q)))');
      Object.assign(names, { '#searchCode': 'searchCode', '#searchName': 'searchName', '#searchText': 'searchText' });
      values[':q'] = searchable(filter.q);
    }
    const page = await readFilteredPage({
      tableName: this.tableName,
      partition: { name: 'pk', value: bomsOf(organizationId) },
      sortKey: { name: 'sk', ...sortKeyRange(BOM_LIST_PREFIX) },
      after,
      limit,
      budget: BOM_LIST_READ_BUDGET,
      ...(conditions.length > 0 ? { filter: { expression: conditions.join(' AND '), names, values } } : {}),
    });
    return { items: page.items.map((item) => item.summary as BomSummary), last: page.last, more: page.more };
  }

  async revisions(organizationId: string, bomId: string, after: string | undefined, limit: number): Promise<PageOf<BomRevisionListing>> {
    const page = await readPage({
      tableName: this.tableName,
      partition: { name: 'pk', value: bomRevisionsOf(organizationId, bomId) },
      sortKey: { name: 'sk', ...sortKeyRange(REVISION_NUMBER_PREFIX) },
      after,
      limit,
    });
    return { items: page.items.map((item) => item.revision as BomRevisionListing), last: page.last, more: page.more };
  }

  async revision(organizationId: string, bomId: string, revisionId: string): Promise<BomRevision | undefined> {
    const { Item } = await documentClient.send(
      new GetCommand({ TableName: this.tableName, Key: bomRevisionEntity.key({ organizationId, bomId, revisionId }), ConsistentRead: true }),
    );
    return Item?.revision as BomRevision | undefined;
  }

  /** The builds of a BOM that consumed one stock record (lib/boms/store/build-provenance-store.ts). */
  builds(organizationId: string, bomId: string, sourceStockRecordId: string, after: string | undefined, limit: number): Promise<PageOf<BuildProvenance>> {
    return this.provenance.builds(organizationId, bomId, sourceStockRecordId, after, limit);
  }

  /** A build's provenance, written in the transaction that records the build (lib/boms/store/build-provenance-store.ts). */
  buildWrites(organizationId: string, build: BuildProvenance): StoreWrite[] {
    return this.provenance.buildWrites(organizationId, build);
  }

  /** The BOM still at `expectedVersion` (its revision and archived flag as read), checked in the transaction without a write. */
  unchangedCheck(organizationId: string, bomId: string, expectedVersion: number): StoreWrite {
    return {
      item: {
        ConditionCheck: {
          TableName: this.tableName,
          Key: bomEntity.key({ organizationId, bomId }),
          ConditionExpression: 'version = :expected',
          ExpressionAttributeValues: { ':expected': expectedVersion },
        },
      },
    };
  }
}
