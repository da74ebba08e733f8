import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { sqsClient } from './sqs-client.ts';

/** The message that asks the import worker to (continue to) process a job. */
export interface ImportJobMessage {
  organizationId: string;
  jobId: string;
}

export class JobQueue {
  constructor(private readonly queueUrl: string) {}

  async send(message: ImportJobMessage): Promise<void> {
    await sqsClient.send(new SendMessageCommand({ QueueUrl: this.queueUrl, MessageBody: JSON.stringify(message) }));
  }
}

export function parseJobMessage(body: string): ImportJobMessage | undefined {
  try {
    const parsed = JSON.parse(body) as Partial<ImportJobMessage>;
    if (typeof parsed.organizationId === 'string' && typeof parsed.jobId === 'string') return { organizationId: parsed.organizationId, jobId: parsed.jobId };
  } catch {
    // Not JSON: a poison message.
  }
  return undefined;
}
