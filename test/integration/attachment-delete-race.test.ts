import { describe, expect, it } from 'vitest';
import type { Attachment } from '../../lib/attachments/domain/attachment.ts';
import { AttachmentCommands } from '../../lib/attachments/domain/commands.ts';
import { newId } from '../../lib/platform/core/ids.ts';
import { AttachmentsStore } from '../../lib/attachments/store/attachments-store.ts';
import { uniqueOrganization } from '../support/api.ts';
import { tableName, transactionWriter } from '../support/events.ts';

/**
 * Two deletes of one attachment that both read it before either commits (docs/attachments.md
 * "Deleting"): the race is forced by planning both before committing either, on the local stack.
 * The loser's transaction finds the record gone and is told 404 `not-found`, as if it had come later.
 */

function linkAttachment(id: string): Attachment {
  return {
    id,
    targetKind: 'item',
    targetId: 'itm_01J0000000000000000000000Z',
    kind: 'link',
    fileKind: 'other',
    title: 'example.com',
    fileName: null,
    contentType: null,
    sizeBytes: null,
    sha256: null,
    pageCount: null,
    url: 'https://example.com/a',
    createdAt: new Date().toISOString(),
    createdBy: 'key_test',
  };
}

describe('concurrent deletes of one attachment', () => {
  it('answers the delete that lost the race 404 attachments.not-found', async () => {
    // Prepare: the attachment, and two delete plans made while it still existed
    const organizationId = uniqueOrganization();
    const attachments = new AttachmentsStore(tableName('inventory'));
    const unused = () => Promise.reject(new Error('no bodies in this test'));
    const commands = new AttachmentCommands({ attachments, objects: { put: unused, delete: unused }, targets: { exists: async () => true } });
    const id = newId('att');
    const context = { organizationId, actor: { type: 'system' as const, id: 'tests' }, traceId: null };
    await transactionWriter().run(context, async () => ({
      writes: attachments.createWrites(organizationId, { attachment: linkAttachment(id), objectKey: null }),
      events: [],
      result: undefined,
    }));
    const winner = await commands.delete(organizationId, id);
    const loser = await commands.delete(organizationId, id);

    // Act
    await transactionWriter().run(context, async () => winner);
    const lost = await transactionWriter()
      .run(context, async () => loser)
      .then(
        () => undefined,
        (error: unknown) => error,
      );

    // Assess
    expect(lost).toMatchObject({ status: 404, code: 'customer-api.attachments.not-found' });
    expect(await attachments.get(organizationId, id)).toBeUndefined();
  });
});
