import { createHash } from 'node:crypto';
import { awsJsonError, awsRegion, signedFetch, signerFor } from './aws-signed-fetch.ts';

const sqsSigner = signerFor('sqs');
/** A send that has not been answered in this long is tried again (the signed request retries). */
const SEND_TIMEOUT_MS = 10_000;

/**
 * Where the SQS client would send a queue's requests: `AWS_ENDPOINT_URL_SQS` when set (the local
 * queue), otherwise the queue URL's own host (the client's `useQueueUrlAsEndpoint`), and the
 * region's endpoint for a URL without one.
 */
async function sqsEndpoint(queueUrl: string): Promise<URL> {
  if (process.env.AWS_ENDPOINT_URL_SQS) return new URL('/', process.env.AWS_ENDPOINT_URL_SQS);
  if (URL.canParse(queueUrl)) return new URL('/', queueUrl);
  return new URL(`https://sqs.${await awsRegion()}.amazonaws.com/`);
}

/**
 * One SQS call as the SQS client would send it (awsJson1_0, signed and retried as it would,
 * lib/platform/aws/aws-signed-fetch.ts). Producers send with it instead of bundling the client (~25 KB)
 * for one call (docs/operations.md#bundles).
 */
export async function sqsRequest<T>(queueUrl: string, action: 'SendMessage' | 'SendMessageBatch', payload: Record<string, unknown>): Promise<T> {
  const response = await signedFetch(sqsSigner, {
    url: await sqsEndpoint(queueUrl),
    method: 'POST',
    headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': `AmazonSQS.${action}` },
    body: JSON.stringify({ QueueUrl: queueUrl, ...payload }),
    timeoutMs: SEND_TIMEOUT_MS,
    errorOf: awsJsonError,
  });
  return (await response.json()) as T;
}

/** SQS answers with the MD5 of each body it stored; a mismatch means it stored something else. */
export function checkStoredBody(body: string, md5: unknown): void {
  if (typeof md5 === 'string' && md5 !== createHash('md5').update(body).digest('hex')) {
    throw new Error('SQS stored a message body other than the one sent (MD5 mismatch)');
  }
}
