import { awsRegion, signerFor } from './aws-signed-fetch.ts';

/**
 * What every signed S3 request of ours shares (lib/platform/aws/aws-signed-fetch.ts says why the S3
 * client is not used): the signer, the object URL and the error document. Used by the attachment
 * bodies (attachment-objects.ts) and the import files (files-store.ts).
 */

export const s3Signer = signerFor('s3', { uriEscapePath: false });

/** As the SDK escapes a query value or a key segment: `encodeURIComponent` plus `!'()*`. */
export const escapeUri = (value: string): string =>
  encodeURIComponent(value).replace(/[!'()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * The object's URL as the S3 client resolves it: the endpoint of `AWS_ENDPOINT_URL_S3` or the
 * region's, the bucket in the path where `S3_FORCE_PATH_STYLE` asks for it (the local S3), in
 * the host name otherwise (virtual-hosted style, AWS).
 */
export async function objectUrl(bucket: string, key: string): Promise<URL> {
  const endpoint = new URL(process.env.AWS_ENDPOINT_URL_S3 ?? `https://s3.${await awsRegion()}.amazonaws.com`);
  const path = key.split('/').map(escapeUri).join('/');
  if (process.env.S3_FORCE_PATH_STYLE === 'true') return new URL(`${endpoint.origin}/${bucket}/${path}`);
  return new URL(`${endpoint.protocol}//${bucket}.${endpoint.host}/${path}`);
}

/** S3's error document: `<Error><Code>…</Code><Message>…</Message></Error>` (none for HEAD-like answers). */
export function s3Error(status: number, body: string): { code: string; message: string } {
  const field = (name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(body)?.[1];
  return { code: field('Code') ?? String(status), message: field('Message') ?? `S3 answered ${status}` };
}
