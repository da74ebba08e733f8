import { DeleteObjectCommand, GetObjectCommand, ListObjectsCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { AttachmentObjects } from '../domain/attachments/attachment.ts';
import { attachmentDisposition } from '../domain/attachments/file-name.ts';
import { s3Client } from './s3-client.ts';

/** Attachment bodies in the files bucket, under the attachments prefix (docs/attachments.md "Files"). */
export class AttachmentObjectsStore implements AttachmentObjects {
  constructor(private readonly bucket: string) {}

  async put(key: string, content: Buffer, contentType: string, sha256: string): Promise<void> {
    await s3Client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: content, ContentType: contentType, Metadata: { sha256 } }));
  }

  async delete(key: string): Promise<void> {
    await s3Client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  /** The stored type and a forced download are part of the signature: the URL cannot be edited to render the file. */
  downloadUrl(key: string, options: { fileName: string; contentType: string; expiresInSeconds: number }): Promise<string> {
    const command = new GetObjectCommand({
      Bucket: this.bucket,
      Key: key,
      ResponseContentDisposition: attachmentDisposition(options.fileName),
      ResponseContentType: options.contentType,
    });
    return getSignedUrl(s3Client, command, { expiresIn: options.expiresInSeconds });
  }

  /**
   * Every object under `prefix` with its last change, in key order, page after page (for the
   * orphan sweep); after `startAfter` when given, `pageSize` keys per request (S3's default 1,000).
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
