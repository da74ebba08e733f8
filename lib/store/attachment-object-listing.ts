import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { s3Client } from './s3-client.ts';

/** Attachment bodies in the files bucket, listed with the S3 client (the orphan sweep's only S3 read). */
export class AttachmentObjectListing {
  constructor(private readonly bucket: string) {}

  /** Every object under `prefix` with its last change, page after page. */
  async *listed(prefix: string): AsyncGenerator<{ key: string; lastModified: Date }> {
    let token: string | undefined;
    do {
      const page = await s3Client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }));
      for (const object of page.Contents ?? []) if (object.Key && object.LastModified) yield { key: object.Key, lastModified: object.LastModified };
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }
}
