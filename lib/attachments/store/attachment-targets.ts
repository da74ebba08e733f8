import { GetCommand, type NativeAttributeValue } from '@aws-sdk/lib-dynamodb';
import type { AttachmentTarget, AttachmentTargets } from '../domain/attachment.ts';
import { INVENTORY_RECORD_TYPES } from '../../inventory/index.ts';
import { documentClient } from '../../platform/aws/dynamodb-client.ts';
import { inventoryRecordEntity } from '../../inventory/store/index.ts';
import { bomEntity, recordPointerEntity } from '../../boms/store/index.ts';
import { importJobEntity } from '../../imports/store/index.ts';

/**
 * Whether an attachment's target is a record of the organization (docs/attachments.md "Targets"):
 * one consistent GetItem of the record's own key. The keys are the ones the record's store reads
 * (inventory-store.ts, boms-store.ts, import-jobs-store.ts, stock-store.ts), taken from the
 * entities directly: the stores themselves would bring every write and list of four areas into
 * the attachment functions (docs/performance.md "Bundles"). A purchase order is named by the
 * receipt an import recorded (`rcp_…`), a count by its `cnt_…`; a BOM revision and a build share
 * one pointer table, so the id's prefix says which kind it must be.
 */
export class AttachmentTargetsStore implements AttachmentTargets {
  constructor(private readonly tableName: string) {}

  async exists(organizationId: string, target: AttachmentTarget): Promise<boolean> {
    switch (target.kind) {
      case 'item':
      case 'location':
      case 'stock-record': {
        // An id of another type is unknown here, not a read of some other record.
        if (!target.id.startsWith(`${INVENTORY_RECORD_TYPES[target.kind].idPrefix}_`)) return false;
        const item = await this.read(inventoryRecordEntity.key({ organizationId, recordType: target.kind, id: target.id }));
        return item?.recordType === target.kind;
      }
      case 'bom':
        return (await this.read(bomEntity.key({ organizationId, bomId: target.id }))) !== undefined;
      case 'bom-revision':
      case 'build':
        return (
          target.id.startsWith(target.kind === 'build' ? 'bld_' : 'rev_') &&
          (await this.read(recordPointerEntity.key({ organizationId, id: target.id }))) !== undefined
        );
      case 'import-job':
        return (await this.read(importJobEntity.key({ organizationId, jobId: target.id })))?.job !== undefined;
      case 'purchase-order':
      case 'count':
        return (
          target.id.startsWith(target.kind === 'count' ? 'cnt_' : 'rcp_') &&
          (await this.read(recordPointerEntity.key({ organizationId, id: target.id })))?.documentKey !== undefined
        );
    }
  }

  private async read(key: Record<string, NativeAttributeValue>): Promise<Record<string, NativeAttributeValue> | undefined> {
    const { Item } = await documentClient.send(new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }));
    return Item;
  }
}
