import { createHash, randomUUID } from 'node:crypto';
import { AttachmentObjectListing } from '../../lib/attachments/store/attachment-object-listing.ts';
import { AttachmentObjectsStore } from '../../lib/attachments/store/attachment-objects.ts';

/**
 * A Lambda entry for test/integration/lambda-bundle.test.ts: every S3 call the service makes
 * (put, presigned get, list, delete) through the real stores, so that the bundle proves both the
 * signed requests of the attachment routes (lib/attachments/store/attachment-objects.ts) and the S3 client of
 * the sweep work with the Lambda aliases of infra/bundling.ts (the event-stream stub included).
 */
export async function handler(): Promise<{ body: string; listed: boolean; deleted: boolean }> {
  const bucket = process.env.FILES_BUCKET_NAME;
  if (!bucket) throw new Error('FILES_BUCKET_NAME is not set');
  const store = new AttachmentObjectsStore(bucket);
  const listing = new AttachmentObjectListing(bucket);
  const prefix = `attachments/bundle-probe/${randomUUID()}/`;
  const key = `${prefix}probe.txt`;
  const content = Buffer.from('bundled S3 client');
  await store.put(key, content, 'text/plain', createHash('sha256').update(content).digest('hex'));
  const url = await store.downloadUrl(key, { fileName: 'probe.txt', contentType: 'text/plain', expiresInSeconds: 60 });
  const body = await (await fetch(url)).text();
  const keysOf = async () => {
    const keys: string[] = [];
    for await (const object of listing.listed(prefix)) keys.push(object.key);
    return keys;
  };
  const listed = (await keysOf()).includes(key);
  await store.delete(key);
  return { body, listed, deleted: (await keysOf()).length === 0 };
}
