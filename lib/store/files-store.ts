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

  /** Reads a whole object; files are at most a few MiB (imports: 4 MiB). */
  async read(key: string): Promise<Buffer> {
    const result = await s3Client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
    if (!result.Body) throw new Error(`Object ${key} has no body`);
    return Buffer.from(await result.Body.transformToByteArray());
  }
}
