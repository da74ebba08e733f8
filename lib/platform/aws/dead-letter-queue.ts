import { ChangeMessageVisibilityCommand, DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import type { DeadLetter } from '../jobs/sweep-jobs.ts';
import { parseJobMessage } from './job-queue.ts';
import { sqsClient } from './sqs-client.ts';

/** Receives at most this many dead letters per sweep (10 per call). */
const DEAD_LETTERS_PER_SWEEP = 100;
/** Long enough for one sweep to deal with what it received, short enough to retry soon. */
const DEAD_LETTER_HOLD_SECONDS = 30;

/** The import queue's dead-letter queue, as the sweeper reads it. */
export class DeadLetterQueue {
  constructor(private readonly queueUrl: string) {}

  async receive(): Promise<DeadLetter[]> {
    const letters: DeadLetter[] = [];
    while (letters.length < DEAD_LETTERS_PER_SWEEP) {
      const { Messages = [] } = await sqsClient.send(
        new ReceiveMessageCommand({ QueueUrl: this.queueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 0, VisibilityTimeout: DEAD_LETTER_HOLD_SECONDS }),
      );
      if (Messages.length === 0) break;
      for (const message of Messages) {
        const receipt = message.ReceiptHandle ?? '';
        letters.push({
          job: parseJobMessage(message.Body ?? ''),
          remove: async () => void (await sqsClient.send(new DeleteMessageCommand({ QueueUrl: this.queueUrl, ReceiptHandle: receipt }))),
          release: async () =>
            void (await sqsClient.send(new ChangeMessageVisibilityCommand({ QueueUrl: this.queueUrl, ReceiptHandle: receipt, VisibilityTimeout: 0 }))),
        });
      }
    }
    return letters;
  }
}
