import { GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { s3Client } from './s3-client.ts';

/** Uploaded files in the files bucket. Keys are deterministic, so a retried write is harmless. */
export class FilesStore {
  constructor(private readonly bucket: string) {}

  async put(key: string, content: Buffer, contentType: string, sha256Hex: string): Promise<void> {
    await s3Client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: key,
        Body: content,
        ContentType: contentType,
        Metadata: { sha256: sha256Hex },
      }),
    );
  }

  /** An object's body as it streams in (the reader is never handed the whole file at once). */
  async open(key: string): Promise<AsyncIterable<Uint8Array>> {
    const result = await s3Client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
    const body = result.Body as (AsyncIterable<Uint8Array> & object) | undefined;
    if (!body || !(Symbol.asyncIterator in body)) throw new Error(`Object ${key} has no streaming body`);
    return body;
  }
}
