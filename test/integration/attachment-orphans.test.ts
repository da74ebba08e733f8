import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { ATTACHMENT_OBJECT_PREFIX, attachmentObjectKey, type Attachment } from '../../lib/attachments/domain/attachment.ts';
import { sweepOrphanObjects, type OrphanSweepPorts } from '../../lib/attachments/domain/sweep-orphans.ts';
import { newId } from '../../lib/platform/core/ids.ts';
import { AttachmentObjectListing } from '../../lib/attachments/store/attachment-object-listing.ts';
import { AttachmentObjectsStore } from '../../lib/attachments/store/attachment-objects.ts';
import { AttachmentsStore } from '../../lib/attachments/store/attachments-store.ts';
import { s3Client } from '../../lib/platform/aws/s3-client.ts';
import { SweepPositionsStore } from '../../lib/attachments/store/sweep-positions.ts';
import { BUCKET_ENV_VAR } from '../../lib/platform/storage/tables.ts';
import { uniqueOrganization } from '../support/api.ts';
import { tableName, transactionWriter } from '../support/events.ts';

/**
 * The orphan sweep on the local stack (docs/attachments.md "Deleting"): bodies without a record
 * are deleted once old enough; bodies with a record, and young bodies, are kept. A run that runs
 * out of time saves where it stopped (in DynamoDB); the next run continues there, and the one
 * after the end of the listing starts over.
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
  return {
    id,
    targetKind: 'item',
    targetId: 'itm_01J0000000000000000000000Z',
    kind: 'file',
    fileKind: 'other',
    title: 'a.pdf',
    fileName: 'a.pdf',
    contentType: 'application/pdf',
    sizeBytes: 3,
    sha256: 'x',
    pageCount: null,
    url: null,
    createdAt: now,
    createdBy: 'key_test',
  };
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
      listed: (startAfter: string | undefined) => new AttachmentObjectListing(bucket()).listed(`${ATTACHMENT_OBJECT_PREFIX}${organizationId}/`, { startAfter }),
      existing: (org: string, ids: string[]) => records.existing(org, ids),
      delete: (key: string) => objects.delete(key),
      onError: (key: string) => void errors.push(key),
      position: new SweepPositionsStore(tableName('inventory')).of(`attachment-objects-test-${organizationId}`),
    };

    // Act: first with the real minimum age (both bodies are seconds old), then as if an hour had passed
    const young = await sweepOrphanObjects(ports, new Date());
    const orphanKeptWhileYoung = await exists(attachmentObjectKey(organizationId, orphan));
    const old = await sweepOrphanObjects(ports, new Date(Date.now() + 61 * 60_000));

    // Assess
    expect(young).toEqual({ examined: 2, deleted: 0, errors: 0, stoppedAfter: null });
    expect(orphanKeptWhileYoung).toBe(true);
    expect(old).toEqual({ examined: 2, deleted: 1, errors: 0, stoppedAfter: null });
    expect(await exists(attachmentObjectKey(organizationId, orphan))).toBe(false);
    expect(await exists(attachmentObjectKey(organizationId, kept))).toBe(true);
    expect(errors).toEqual([]);
  });
});

describe('the orphan sweep over several runs', () => {
  it('continues each run where the last one ran out of time, and starts over after the end', async () => {
    // Prepare: 7 bodies in key order, the 2nd and 5th with a record, the others orphans; pages of 2
    const organizationId = uniqueOrganization();
    const objects = new AttachmentObjectsStore(bucket());
    const records = new AttachmentsStore(tableName('inventory'));
    const ids = Array.from({ length: 7 }, () => newId('att')).sort();
    const keysInOrder = ids.map((id) => attachmentObjectKey(organizationId, id));
    const withRecord = [ids[1] ?? '', ids[4] ?? ''];
    for (const key of keysInOrder) await objects.put(key, Buffer.from('pdf'), 'application/pdf', 'x');
    for (const id of withRecord) {
      await transactionWriter().run({ organizationId, actor: { type: 'system', id: 'tests' }, traceId: null }, async () => ({
        writes: records.createWrites(organizationId, { attachment: fileAttachment(id), objectKey: attachmentObjectKey(organizationId, id) }),
        events: [],
        result: undefined,
      }));
    }
    const position = new SweepPositionsStore(tableName('inventory')).of(`attachment-objects-test-${organizationId}`);
    const listedFrom: Array<string | null> = [];
    const ports: OrphanSweepPorts = {
      listed: (startAfter) => {
        listedFrom.push(startAfter ?? null);
        return new AttachmentObjectListing(bucket()).listed(`${ATTACHMENT_OBJECT_PREFIX}${organizationId}/`, { startAfter, pageSize: 2 });
      },
      existing: (org, attachmentIds) => records.existing(org, attachmentIds),
      delete: (key) => objects.delete(key),
      onError: () => undefined,
      position,
    };
    // A short budget: time for 3 bodies per run (the sweep asks before each one).
    const budgetOf = (bodies: number) => {
      let asked = 0;
      return () => (asked++ < bodies ? 1000 : 0);
    };
    const later = new Date(Date.now() + 61 * 60_000);

    // Act
    const first = await sweepOrphanObjects(ports, later, { msLeft: budgetOf(3) });
    const savedAfterFirst = await position.load();
    const second = await sweepOrphanObjects(ports, later, { msLeft: budgetOf(3) });
    const third = await sweepOrphanObjects(ports, later, { msLeft: budgetOf(3) });
    const savedAfterThird = await position.load();
    const fourth = await sweepOrphanObjects(ports, later, { msLeft: budgetOf(3) });

    // Assess
    expect(first).toEqual({ examined: 3, deleted: 2, errors: 0, stoppedAfter: keysInOrder[2] });
    expect(savedAfterFirst).toBe(keysInOrder[2]);
    expect(second).toEqual({ examined: 3, deleted: 2, errors: 0, stoppedAfter: keysInOrder[5] });
    expect(third).toEqual({ examined: 1, deleted: 1, errors: 0, stoppedAfter: null });
    expect(savedAfterThird).toBeUndefined();
    // Round two starts at the beginning: only the bodies with a record are left.
    expect(fourth).toEqual({ examined: 2, deleted: 0, errors: 0, stoppedAfter: null });
    expect(listedFrom).toEqual([null, keysInOrder[2], keysInOrder[5], null]);
    const left = await Promise.all(keysInOrder.map(exists));
    expect(keysInOrder.filter((_key, index) => left[index])).toEqual(withRecord.map((id) => attachmentObjectKey(organizationId, id)));
  });
});
