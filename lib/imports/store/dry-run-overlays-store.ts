import type { DryRunOverlayObjects } from '../domain/pipeline/dry-run.ts';
import { signedFetch } from '../../platform/aws/aws-signed-fetch.ts';
import { objectUrl, s3Error, s3Signer } from '../../platform/aws/s3-signed-requests.ts';

/**
 * The overlay objects of import dry runs (lib/imports/domain/pipeline/dry-run.ts) in the files
 * bucket, beside the jobs' files; signed requests like files-store.ts, for the same reason.
 */
export class DryRunOverlaysStore implements DryRunOverlayObjects {
  constructor(private readonly bucket: string) {}

  async put(key: string, body: string): Promise<void> {
    await signedFetch(s3Signer, {
      url: await objectUrl(this.bucket, key),
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body,
      errorOf: s3Error,
    });
  }

  async get(key: string): Promise<string> {
    const response = await signedFetch(s3Signer, { url: await objectUrl(this.bucket, key), method: 'GET', errorOf: s3Error });
    return response.text();
  }
}
