import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { attachmentNotFound, type Attachment, type AttachmentStorage, type AttachmentTarget, type StoredAttachment } from '../domain/attachment.ts';
import type { PageOf } from '../../platform/pagination/page.ts';
import { documentClient } from '../../platform/aws/dynamodb-client.ts';
import { batchGet, entityItem, readPage, sortKeyRange } from '../../platform/dynamo/entity.ts';
import { ATTACHMENT_LIST_PREFIX, attachmentEntity, attachmentListEntryEntity, attachmentsOf, attachmentsOfTarget } from './entities.ts';
import type { StoreWrite } from '../../platform/dynamo/transaction-writer.ts';

/**
 * Attachment records in the inventory table (docs/attachments.md): the record by id, plus an
 * entry in the organization's list and one in its target's list, all written and deleted in one
 * transaction. Lists are ordered by id, so by creation.
 */
export class AttachmentsStore implements AttachmentStorage<StoreWrite> {
  constructor(private readonly tableName: string) {}

  async get(organizationId: string, attachmentId: string): Promise<StoredAttachment | undefined> {
    const { Item } = await documentClient.send(
      new GetCommand({ TableName: this.tableName, Key: attachmentEntity.key({ organizationId, attachmentId }), ConsistentRead: true }),
    );
    return Item ? { attachment: Item.attachment as Attachment, objectKey: (Item.objectKey as string | null) ?? null } : undefined;
  }

  async existing(organizationId: string, attachmentIds: string[]): Promise<Set<string>> {
    const items = await batchGet(
      this.tableName,
      attachmentIds.map((attachmentId) => attachmentEntity.key({ organizationId, attachmentId })),
    );
    return new Set(items.map((item) => (item.attachment as Attachment).id));
  }

  createWrites(organizationId: string, stored: StoredAttachment): StoreWrite[] {
    const { attachment, objectKey } = stored;
    const put = (Item: Record<string, unknown>): StoreWrite => ({
      item: { Put: { TableName: this.tableName, Item, ConditionExpression: 'attribute_not_exists(pk)' } },
    });
    return [
      put(entityItem(attachmentEntity, { organizationId, attachmentId: attachment.id }, { attachment, objectKey })),
      ...this.entryIdentities(organizationId, attachment).map((identity) => put(entityItem(attachmentListEntryEntity, identity, { attachment }))),
    ];
  }

  deleteWrites(organizationId: string, stored: StoredAttachment): StoreWrite[] {
    const { attachment } = stored;
    // Attachments are never changed, only deleted: a record gone since it was read was deleted by a concurrent request.
    const remove = (Key: Record<string, unknown>): StoreWrite => ({
      item: { Delete: { TableName: this.tableName, Key, ConditionExpression: 'attribute_exists(pk)' } },
      onConditionFailed: attachmentNotFound,
    });
    return [
      remove(attachmentEntity.key({ organizationId, attachmentId: attachment.id })),
      ...this.entryIdentities(organizationId, attachment).map((identity) => remove(attachmentListEntryEntity.key(identity))),
    ];
  }

  async list(organizationId: string, target: AttachmentTarget | undefined, after: string | undefined, limit: number): Promise<PageOf<Attachment>> {
    const page = await readPage({
      tableName: this.tableName,
      partition: { name: 'pk', value: target ? attachmentsOfTarget(organizationId, target.kind, target.id) : attachmentsOf(organizationId) },
      sortKey: { name: 'sk', ...sortKeyRange(ATTACHMENT_LIST_PREFIX) },
      after,
      limit,
    });
    return { items: page.items.map((item) => item.attachment as Attachment), last: page.last, more: page.more };
  }

  private entryIdentities(organizationId: string, attachment: Attachment) {
    return [
      { organizationId, attachmentId: attachment.id },
      { organizationId, attachmentId: attachment.id, target: { kind: attachment.targetKind, id: attachment.targetId } },
    ];
  }
}
