import { checkStoredBody, sqsRequest } from './signed-sqs.ts';

/** The message that asks the import worker to (continue to) process a job. */
export interface ImportJobMessage {
  organizationId: string;
  jobId: string;
  /** How many invocations in a row handed this job on without progress (absent: none). */
  handoffsWithoutProgress?: number;
}

/**
 * The import queue as its producers (the submission, the worker handing a job on, the sweeper)
 * use it: one `SendMessage`, the awsJson1_0 request the SQS client would send, signed and retried
 * as it would (lib/platform/aws/aws-signed-fetch.ts), with its check of the body's MD5 that SQS returns.
 * The client itself is ~25 KB in the submission and the worker for this one call
 * (docs/operations.md#bundles). The dead-letter queue's reader is dead-letter-queue.ts.
 */
export class JobQueue {
  constructor(private readonly queueUrl: string) {}

  /** Sends the message, visible after `delaySeconds` when given. */
  async send(message: ImportJobMessage, delaySeconds?: number): Promise<void> {
    const body = JSON.stringify(message);
    // The organization is the message's tenant for SQS fair queues: one tenant's backlog does not hold up the others' jobs (docs/operations.md "Throttling and concurrency").
    const request = { MessageBody: body, MessageGroupId: message.organizationId, ...(delaySeconds === undefined ? {} : { DelaySeconds: delaySeconds }) };
    const { MD5OfMessageBody: md5 } = await sqsRequest<{ MD5OfMessageBody?: unknown }>(this.queueUrl, 'SendMessage', request);
    checkStoredBody(body, md5);
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
