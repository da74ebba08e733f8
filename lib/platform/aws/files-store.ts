import { signedFetch } from './aws-signed-fetch.ts';
import { objectUrl, s3Error, s3Signer } from './s3-signed-requests.ts';

/**
 * Uploaded import files in the files bucket. Keys are deterministic, so a retried write is
 * harmless. The put (the submission) and the streamed get (the import worker) are signed requests
 * (lib/platform/aws/aws-signed-fetch.ts) rather than S3 client calls: the client would add ~270 KB to
 * both functions (docs/operations.md#bundles). The put's body is covered by its signature (SigV4's
 * payload hash, which S3 checks) and its SHA-256 is kept in the object's metadata, as before.
 */
export class FilesStore {
  constructor(private readonly bucket: string) {}

  async put(key: string, content: Buffer, contentType: string, sha256Hex: string): Promise<void> {
    await signedFetch(s3Signer, {
      url: await objectUrl(this.bucket, key),
      method: 'PUT',
      headers: { 'content-type': contentType, 'x-amz-meta-sha256': sha256Hex },
      body: content,
      errorOf: s3Error,
    });
  }

  /** An object's body as it streams in (the reader is never handed the whole file at once). */
  async open(key: string): Promise<AsyncIterable<Uint8Array>> {
    const response = await signedFetch(s3Signer, { url: await objectUrl(this.bucket, key), method: 'GET', streamsBody: true, errorOf: s3Error });
    if (!response.body) throw new Error(`Object ${key} has no streaming body`);
    return response.body;
  }
}
