import { ListObjectsCommand } from '@aws-sdk/client-s3';
import { s3Client } from '../../platform/aws/s3-client.ts';

/** Attachment bodies in the files bucket, listed with the S3 client (the orphan sweep's only S3 read). */
export class AttachmentObjectListing {
  constructor(private readonly bucket: string) {}

  /**
   * Every object under `prefix` with its last change, in key order, page after page; after
   * `startAfter` when given, `pageSize` keys per request (S3's default 1,000).
   * Each page starts after the last key of the one before (ListObjects with `Marker`): the same
   * request resumes a saved position, and the local S3 (s3rver) cannot make ListObjectsV2's
   * continuation tokens under OpenSSL 3 (they use DES). The same `s3:ListBucket` permission.
   */
  async *listed(prefix: string, options: { startAfter?: string | undefined; pageSize?: number } = {}): AsyncGenerator<{ key: string; lastModified: Date }> {
    let after = options.startAfter;
    let truncated: boolean | undefined;
    do {
      const page = await s3Client.send(new ListObjectsCommand({ Bucket: this.bucket, Prefix: prefix, MaxKeys: options.pageSize, Marker: after }));
      for (const object of page.Contents ?? []) {
        if (!object.Key) continue;
        after = object.Key;
        if (object.LastModified) yield { key: object.Key, lastModified: object.LastModified };
      }
      truncated = page.IsTruncated === true && (page.Contents?.length ?? 0) > 0;
    } while (truncated);
  }
}
