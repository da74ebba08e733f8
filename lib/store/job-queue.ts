import { ChangeMessageVisibilityCommand, DeleteMessageCommand, ReceiveMessageCommand, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { DeadLetter } from '../domain/imports/sweep-jobs.ts';
import { sqsClient } from './sqs-client.ts';

/** The message that asks the import worker to (continue to) process a job. */
export interface ImportJobMessage {
  organizationId: string;
  jobId: string;
  /** How many invocations in a row handed this job on without progress (absent: none). */
  handoffsWithoutProgress?: number;
}

export class JobQueue {
  constructor(private readonly queueUrl: string) {}

  async send(message: ImportJobMessage): Promise<void> {
    await sqsClient.send(new SendMessageCommand({ QueueUrl: this.queueUrl, MessageBody: JSON.stringify(message) }));
  }
}

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
          release: async () => void (await sqsClient.send(new ChangeMessageVisibilityCommand({ QueueUrl: this.queueUrl, ReceiptHandle: receipt, VisibilityTimeout: 0 }))),
        });
      }
    }
    return letters;
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
