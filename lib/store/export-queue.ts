import { JobQueue, type ImportJobMessage } from './job-queue.ts';
import { checkStoredBody, sqsRequest } from './signed-sqs.ts';

/**
 * The export queue as the export worker uses it: the job queue's send, plus a delayed one for an
 * export that waits for one of its organization's slots (docs/exports.md "Fairness").
 */
export class ExportQueue extends JobQueue {
  constructor(private readonly url: string) {
    super(url);
  }

  async sendLater(message: ImportJobMessage, delaySeconds: number): Promise<void> {
    const body = JSON.stringify(message);
    const { MD5OfMessageBody: md5 } = await sqsRequest<{ MD5OfMessageBody?: unknown }>(this.url, 'SendMessage', { MessageBody: body, DelaySeconds: delaySeconds });
    checkStoredBody(body, md5);
  }
}
