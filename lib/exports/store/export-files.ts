import { createHash } from 'node:crypto';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  GetObjectCommand,
  HeadObjectCommand,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import type { UploadedPart } from '../domain/job.ts';
import { s3Client } from '../../platform/aws/s3-client.ts';

/**
 * Export files in the files bucket, under the exports prefix only (docs/exports.md "Guarantees"):
 * the multipart upload the worker continues across invocations from its checkpoint (upload id +
 * parts with their ETags), so it uses the S3 client's multipart calls rather than lib-storage's
 * `Upload`, which cannot be resumed by another process. Uploading a part number again replaces
 * that part: a redelivered message that rewrites its part in flight never duplicates rows.
 */
export class ExportFilesStore {
  constructor(private readonly bucket: string) {}

  async createUpload(key: string, contentType: string): Promise<string> {
    const result = await s3Client.send(new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: key, ContentType: contentType }));
    if (!result.UploadId) throw new Error(`S3 gave no upload id for ${key}`);
    return result.UploadId;
  }

  async uploadPart(key: string, uploadId: string, partNumber: number, body: Buffer): Promise<string> {
    const result = await s3Client.send(
      new UploadPartCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId, PartNumber: partNumber, Body: body, ContentLength: body.length }),
    );
    if (!result.ETag) throw new Error(`S3 gave no ETag for part ${partNumber} of ${key}`);
    return result.ETag;
  }

  /** Completes the upload; an upload already completed by an earlier delivery (the object exists) is fine. */
  async completeUpload(key: string, uploadId: string, parts: readonly UploadedPart[]): Promise<void> {
    try {
      await s3Client.send(
        new CompleteMultipartUploadCommand({
          Bucket: this.bucket,
          Key: key,
          UploadId: uploadId,
          MultipartUpload: { Parts: parts.map((part) => ({ PartNumber: part.partNumber, ETag: part.etag })) },
        }),
      );
    } catch (error) {
      if ((error as Error).name !== 'NoSuchUpload' || !(await this.exists(key))) throw error;
    }
  }

  async abortUpload(key: string, uploadId: string): Promise<void> {
    await s3Client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: key, UploadId: uploadId })).catch(() => undefined);
  }

  private async exists(key: string): Promise<boolean> {
    try {
      await s3Client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return true;
    } catch {
      return false;
    }
  }

  /** Size and SHA-256 of the stored file, read back as a stream (bounded memory; a hash cannot be checkpointed across invocations). */
  async digest(key: string): Promise<{ sizeBytes: number; sha256: string }> {
    const result = await s3Client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
    const body = result.Body as (AsyncIterable<Uint8Array> & object) | undefined;
    if (!body || !(Symbol.asyncIterator in body)) throw new Error(`Object ${key} has no streaming body`);
    const hash = createHash('sha256');
    let sizeBytes = 0;
    for await (const chunk of body) {
      hash.update(chunk);
      sizeBytes += chunk.length;
    }
    return { sizeBytes, sha256: hash.digest('hex') };
  }
}
