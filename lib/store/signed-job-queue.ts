import { signedFetch, signerFor } from './aws-signed-fetch.ts';
import type { ImportJobMessage } from './job-queue.ts';

/**
 * Sending a job message as one signed request of SQS's JSON protocol (what `SQSClient` sends
 * for `SendMessage`), for HTTP functions whose only queue call is that send: the SQS client
 * would add ~30 KB to their bundles (docs/operations.md#bundles), as the attachment routes'
 * signed S3 requests avoid the S3 client (lib/store/attachment-objects.ts).
 */

const sqsSigner = signerFor('sqs');

/** SQS's JSON error body: `{ "__type": "…#Code", "message": "…" }`. */
function sqsError(status: number, body: string): { code: string; message: string } {
  try {
    const parsed = JSON.parse(body) as { __type?: string; message?: string; Message?: string };
    return { code: parsed.__type?.split('#').pop() ?? String(status), message: parsed.message ?? parsed.Message ?? `SQS answered ${status}` };
  } catch {
    return { code: String(status), message: `SQS answered ${status}` };
  }
}

export class SignedJobQueue {
  constructor(private readonly queueUrl: string) {}

  async send(message: ImportJobMessage): Promise<void> {
    // The queue's own host is the service endpoint (sqs.<region>.amazonaws.com on AWS, the local SQS locally).
    const endpoint = new URL('/', this.queueUrl);
    await signedFetch(sqsSigner, {
      url: endpoint,
      method: 'POST',
      headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': 'AmazonSQS.SendMessage' },
      body: JSON.stringify({ QueueUrl: this.queueUrl, MessageBody: JSON.stringify(message) }),
      errorOf: sqsError,
    });
  }
}
