import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Bom, BomRevision, BomStorage } from '../domain/records.ts';
import { summaryOf } from '../domain/records.ts';
import { BomCodeTakenError, RevisionConflictError } from '../domain/errors.ts';
import { documentClient } from '../../platform/aws/dynamodb-client.ts';
import { entityItem } from '../../platform/dynamo/entity.ts';
import { naturalKeyClaimEntity } from '../../inventory/store/index.ts';
import { bomEntity, bomListEntryEntity, bomRevisionEntity, bomRevisionListingEntity, recordPointerEntity } from './entities.ts';
import type { StoreWrite } from '../../platform/dynamo/transaction-writer.ts';

/**
 * What the BOM writes (`POST /v1/boms`, `PUT /v1/boms/{id}`) need of the BOM store: the BOM by
 * id and the writes of a BOM with its list entry and revision (docs/boms.md "Model"). The lists,
 * revisions and builds reads are BomsStore's (boms-store.ts, which extends this), so the write
 * functions do not bundle them (docs/performance.md "Bundles").
 */
/** The record type of a BOM code's claim (a natural-key claim, as an item's sku). */
export const BOM_CODE_CLAIM = 'bom';

export class BomWritesStore implements Pick<BomStorage<StoreWrite>, 'get' | 'createWrites' | 'updateWrites'> {
  constructor(protected readonly tableName: string) {}

  async get(organizationId: string, bomId: string): Promise<{ bom: Bom; version: number } | undefined> {
    const { Item } = await documentClient.send(
      new GetCommand({ TableName: this.tableName, Key: bomEntity.key({ organizationId, bomId }), ConsistentRead: true }),
    );
    return Item ? { bom: Item.bom as Bom, version: Item.version as number } : undefined;
  }

  createWrites(organizationId: string, bom: Bom, revision: BomRevision): StoreWrite[] {
    const claim = entityItem(naturalKeyClaimEntity, { organizationId, recordType: BOM_CODE_CLAIM, naturalKey: bom.code }, { id: bom.id });
    return [
      {
        item: { Put: { TableName: this.tableName, Item: claim, ConditionExpression: 'attribute_not_exists(pk)' } },
        onConditionFailed: () => new BomCodeTakenError(bom.code),
      },
      { item: { Put: { TableName: this.tableName, Item: this.bomItem(organizationId, bom, 1), ConditionExpression: 'attribute_not_exists(pk)' } } },
      this.listEntryWrite(organizationId, bom),
      ...this.revisionWrites(organizationId, revision),
    ];
  }

  updateWrites(organizationId: string, bom: Bom, expectedVersion: number, revision: BomRevision | undefined): StoreWrite[] {
    return [
      {
        item: {
          Put: {
            TableName: this.tableName,
            Item: this.bomItem(organizationId, bom, expectedVersion + 1),
            ConditionExpression: 'version = :expected',
            ExpressionAttributeValues: { ':expected': expectedVersion },
          },
        },
        // Another update committed since this one read the BOM.
        onConditionFailed: () =>
          new RevisionConflictError(bom.revision.number - (revision ? 1 : 0), 'The BOM changed while this update was applied; read it again and retry.'),
      },
      this.listEntryWrite(organizationId, bom),
      ...(revision ? this.revisionWrites(organizationId, revision) : []),
    ];
  }

  private bomItem(organizationId: string, bom: Bom, version: number) {
    return entityItem(bomEntity, { organizationId, bomId: bom.id }, { bom, version });
  }

  private listEntryWrite(organizationId: string, bom: Bom): StoreWrite {
    const summary = summaryOf(bom);
    const attributes = {
      summary,
      archived: bom.archived,
      status: bom.status,
      targetItemId: bom.targetItemId,
      searchCode: searchable(bom.code),
      searchName: searchable(bom.name),
    };
    return { item: { Put: { TableName: this.tableName, Item: entityItem(bomListEntryEntity, { organizationId, bomId: bom.id }, attributes) } } };
  }

  private revisionWrites(organizationId: string, revision: BomRevision): StoreWrite[] {
    const { content: _content, bomId, ...listing } = revision;
    const identity = { organizationId, bomId };
    return [
      {
        item: {
          Put: {
            TableName: this.tableName,
            Item: entityItem(bomRevisionListingEntity, { ...identity, number: revision.number }, { revision: listing }),
            // Numbers never repeat: a second revision with the same number is a lost race.
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        onConditionFailed: () => new RevisionConflictError(revision.number),
      },
      {
        item: {
          Put: {
            TableName: this.tableName,
            Item: entityItem(bomRevisionEntity, { ...identity, revisionId: revision.id }, { revision }),
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
      },
      this.pointerWrite(organizationId, revision.id, bomId),
    ];
  }

  protected pointerWrite(organizationId: string, id: string, bomId: string): StoreWrite {
    return {
      item: {
        Put: {
          TableName: this.tableName,
          Item: entityItem(recordPointerEntity, { organizationId, id }, { bomId }),
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    };
  }
}

/** Case-insensitive matching without locale surprises. */
export function searchable(text: string): string {
  return text.toLowerCase();
}
