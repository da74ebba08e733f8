import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { ATTACHMENT_OBJECT_PREFIX, attachmentObjectKey, type Attachment } from '../../lib/domain/attachments/attachment.ts';
import { sweepOrphanObjects } from '../../lib/domain/attachments/sweep-orphans.ts';
import { newId } from '../../lib/domain/ids.ts';
import { AttachmentObjectListing } from '../../lib/store/attachment-object-listing.ts';
import { AttachmentObjectsStore } from '../../lib/store/attachment-objects.ts';
import { AttachmentsStore } from '../../lib/store/attachments-store.ts';
import { s3Client } from '../../lib/store/s3-client.ts';
import { BUCKET_ENV_VAR } from '../../lib/store/tables.ts';
import { uniqueOrganization } from '../support/api.ts';
import { tableName, transactionWriter } from '../support/events.ts';

/**
 * The orphan sweep on the local stack (docs/attachments.md "Deleting"): bodies without a record
 * are deleted once old enough; bodies with a record, and young bodies, are kept.
 */

const bucket = () => process.env[BUCKET_ENV_VAR] ?? '';

async function exists(key: string): Promise<boolean> {
  return s3Client.send(new HeadObjectCommand({ Bucket: bucket(), Key: key })).then(
    () => true,
    () => false,
  );
}

function fileAttachment(id: string): Attachment {
  const now = new Date().toISOString();
  return { id, targetKind: 'item', targetId: 'itm_01J0000000000000000000000Z', kind: 'file', fileKind: 'other', title: 'a.pdf', fileName: 'a.pdf', contentType: 'application/pdf', sizeBytes: 3, sha256: 'x', pageCount: null, url: null, createdAt: now, createdBy: 'key_test' };
}

describe('the orphan sweep', () => {
  it('deletes bodies no record names once they are old enough, and keeps the others', async () => {
    // Prepare: one body with its record, one without (an upload that never committed)
    const organizationId = uniqueOrganization();
    const objects = new AttachmentObjectsStore(bucket());
    const records = new AttachmentsStore(tableName('inventory'));
    const kept = newId('att');
    const orphan = newId('att');
    for (const id of [kept, orphan]) await objects.put(attachmentObjectKey(organizationId, id), Buffer.from('pdf'), 'application/pdf', 'x');
    await transactionWriter().run({ organizationId, actor: { type: 'system', id: 'tests' }, traceId: null }, async () => ({
      writes: records.createWrites(organizationId, { attachment: fileAttachment(kept), objectKey: attachmentObjectKey(organizationId, kept) }),
      events: [],
      result: undefined,
    }));
    const errors: string[] = [];
    const ports = {
      // Only this test's organization: other suites' bodies are not this test's to judge.
      listed: () => new AttachmentObjectListing(bucket()).listed(`${ATTACHMENT_OBJECT_PREFIX}${organizationId}/`),
      existing: (org: string, ids: string[]) => records.existing(org, ids),
      delete: (key: string) => objects.delete(key),
      onError: (key: string) => void errors.push(key),
    };

    // Act: first with the real minimum age (both bodies are seconds old), then as if an hour had passed
    const young = await sweepOrphanObjects(ports, new Date());
    const orphanKeptWhileYoung = await exists(attachmentObjectKey(organizationId, orphan));
    const old = await sweepOrphanObjects(ports, new Date(Date.now() + 61 * 60_000));

    // Assess
    expect(young).toEqual({ examined: 2, deleted: 0, errors: 0 });
    expect(orphanKeptWhileYoung).toBe(true);
    expect(old).toEqual({ examined: 2, deleted: 1, errors: 0 });
    expect(await exists(attachmentObjectKey(organizationId, orphan))).toBe(false);
    expect(await exists(attachmentObjectKey(organizationId, kept))).toBe(true);
    expect(errors).toEqual([]);
  });
});
