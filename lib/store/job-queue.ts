import { createHash } from 'node:crypto';
import { awsJsonError, awsRegion, signedFetch, signerFor } from './aws-signed-fetch.ts';

/** The message that asks the import worker to (continue to) process a job. */
export interface ImportJobMessage {
  organizationId: string;
  jobId: string;
  /** How many invocations in a row handed this job on without progress (absent: none). */
  handoffsWithoutProgress?: number;
}

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
 * The import queue as its producers (the submission, the worker handing a job on, the sweeper)
 * use it: one `SendMessage`, the awsJson1_0 request the SQS client would send, signed and retried
 * as it would (lib/store/aws-signed-fetch.ts), with its check of the body's MD5 that SQS returns.
 * The client itself is ~25 KB in the submission and the worker for this one call
 * (docs/operations.md#bundles). The dead-letter queue's reader is dead-letter-queue.ts.
 */
export class JobQueue {
  constructor(private readonly queueUrl: string) {}

  async send(message: ImportJobMessage): Promise<void> {
    const body = JSON.stringify(message);
    const response = await signedFetch(sqsSigner, {
      url: await sqsEndpoint(this.queueUrl),
      method: 'POST',
      headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'AmazonSQS.SendMessage' },
      body: JSON.stringify({ QueueUrl: this.queueUrl, MessageBody: body }),
      timeoutMs: SEND_TIMEOUT_MS,
      errorOf: awsJsonError,
    });
    const { MD5OfMessageBody: md5 } = (await response.json()) as { MD5OfMessageBody?: unknown };
    if (typeof md5 === 'string' && md5 !== createHash('md5').update(body).digest('hex')) {
      throw new Error('SQS stored a message body other than the one sent (MD5 mismatch)');
    }
  }
}

export function parseJobMessage(body: string): ImportJobMessage | undefined {
  try {
    const parsed = JSON.parse(body) as Partial<ImportJobMessage>;
    if (typeof parsed.organizationId === 'string' && typeof parsed.jobId === 'string') {
      const handoffs = parsed.handoffsWithoutProgress;
      const counted = typeof handoffs === 'number' && Number.isInteger(handoffs) && handoffs > 0 ? { handoffsWithoutProgress: handoffs } : {};
      return { organizationId: parsed.organizationId, jobId: parsed.jobId, ...counted };
    }
  } catch {
    // Not JSON: a poison message.
  }
  return undefined;
}
