import type { AttachmentObjects } from '../domain/attachment.ts';
import { attachmentDisposition } from '../domain/file-name.ts';
import { signedFetch } from '../../platform/aws/aws-signed-fetch.ts';
import { escapeUri, objectUrl, s3Error, s3Signer } from '../../platform/aws/s3-signed-requests.ts';

/**
 * Attachment bodies in the files bucket, under the attachments prefix (docs/attachments.md
 * "Files"): the put, delete and presigned GET of the attachment routes, as signed requests
 * (lib/platform/aws/aws-signed-fetch.ts) rather than through the S3 client, which would more than
 * double those functions' bundles (docs/operations.md#bundles). The URLs and signatures are the
 * SDK's own: test/unit/store/attachment-objects.test.ts holds them equal to what `S3Client` and
 * `getSignedUrl` produce. Listing, for the orphan sweep, is in attachment-object-listing.ts.
 */

export class AttachmentObjectsStore implements AttachmentObjects {
  constructor(private readonly bucket: string) {}

  async put(key: string, content: Buffer, contentType: string, sha256: string): Promise<void> {
    await signedFetch(s3Signer, {
      url: await objectUrl(this.bucket, key),
      method: 'PUT',
      headers: { 'content-type': contentType, 'x-amz-meta-sha256': sha256 },
      body: content,
      errorOf: s3Error,
    });
  }

  async delete(key: string): Promise<void> {
    await signedFetch(s3Signer, { url: await objectUrl(this.bucket, key), method: 'DELETE', errorOf: s3Error });
  }

  /** The stored type and a forced download are part of the signature: the URL cannot be edited to render the file. */
  async downloadUrl(key: string, options: { fileName: string; contentType: string; expiresInSeconds: number; signingDate?: Date }): Promise<string> {
    const url = await objectUrl(this.bucket, key);
    const presigned = await s3Signer.presign(
      {
        method: 'GET',
        protocol: url.protocol,
        hostname: url.hostname,
        port: url.port === '' ? undefined : Number(url.port),
        path: url.pathname,
        // As the S3 client's GetObject: its checksum validation asks for the checksum, and it names the operation.
        query: {
          'response-content-disposition': attachmentDisposition(options.fileName),
          'response-content-type': options.contentType,
          'x-amz-checksum-mode': 'ENABLED',
          'x-id': 'GetObject',
        },
        headers: { host: url.host, 'X-Amz-Content-Sha256': 'UNSIGNED-PAYLOAD' },
      },
      { expiresIn: options.expiresInSeconds, ...(options.signingDate ? { signingDate: options.signingDate } : {}) },
    );
    const query = Object.entries(presigned.query ?? {})
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([name, value]) => `${escapeUri(name)}=${escapeUri(String(value))}`)
      .join('&');
    return `${url.origin}${presigned.path}?${query}`;
  }
}
