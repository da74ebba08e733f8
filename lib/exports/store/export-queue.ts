import { JobQueue, type ImportJobMessage } from '../../platform/aws/job-queue.ts';

/**
 * The export queue as the export worker uses it: the job queue's send, plus a delayed one for an
 * export that waits for one of its organization's slots (docs/exports.md "Fairness").
 */
export class ExportQueue extends JobQueue {
  sendLater(message: ImportJobMessage, delaySeconds: number): Promise<void> {
    return this.send(message, delaySeconds);
  }
}
