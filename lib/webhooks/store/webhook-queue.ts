import type { DeliveryMessage, DeliveryQueue, EventSource, StoredEventText } from '../domain/ports.ts';
import { findEvent, findEventBatch, readEventPage, readEventsFrom, readLastSequence, type StoredEventRecord } from '../../platform/dynamo/event-batches.ts';
import { checkStoredBody, sqsRequest } from '../../platform/aws/signed-sqs.ts';

/** The webhook delivery queue (docs/webhooks.md "Retry waits"): JSON messages, sent in batches of up to 10 as signed requests (lib/platform/aws/signed-sqs.ts). */
export class WebhookDeliveryQueue implements DeliveryQueue {
  constructor(private readonly queueUrl: string) {}

  async send(messages: readonly { message: DeliveryMessage; delaySeconds: number }[]): Promise<void> {
    for (let start = 0; start < messages.length; start += 10) {
      const chunk = messages.slice(start, start + 10);
      // The organization is the message's tenant for SQS fair queues: a tenant's backlog does not hold up the others' first attempts (docs/webhooks.md "Fairness").
      const entries = chunk.map(({ message, delaySeconds }, index) => ({
        Id: `m${index}`,
        MessageBody: JSON.stringify(message),
        DelaySeconds: delaySeconds,
        MessageGroupId: message.organizationId,
      }));
      const { Successful = [], Failed } = await sqsRequest<{ Successful?: { Id: string; MD5OfMessageBody?: unknown }[]; Failed?: { Code?: string }[] }>(
        this.queueUrl,
        'SendMessageBatch',
        { Entries: entries },
      );
      for (const sent of Successful) checkStoredBody(entries.find((entry) => entry.Id === sent.Id)?.MessageBody ?? '', sent.MD5OfMessageBody);
      if (Failed && Failed.length > 0)
        throw new Error(`The delivery queue refused ${Failed.length} messages: ${Failed.map((failure) => failure.Code).join(', ')}`);
    }
  }
}

/** A delivery-queue message's body, or undefined for anything else (a poison message). */
export function parseDeliveryMessage(body: string): DeliveryMessage | undefined {
  try {
    const parsed = JSON.parse(body) as Partial<DeliveryMessage> & Record<string, unknown>;
    if (
      parsed.kind === 'attempt' &&
      typeof parsed.organizationId === 'string' &&
      typeof parsed.endpointId === 'string' &&
      typeof parsed.sequence === 'number' &&
      typeof parsed.origin === 'string' &&
      typeof parsed.attempt === 'number' &&
      typeof parsed.dueAt === 'number' &&
      (parsed.deferrals === undefined || typeof parsed.deferrals === 'number')
    ) {
      return parsed as DeliveryMessage;
    }
    if (parsed.kind === 'replay' && typeof parsed.organizationId === 'string' && typeof parsed.replayId === 'string' && typeof parsed.sentAt === 'number')
      return parsed as DeliveryMessage;
  } catch {
    // Not JSON.
  }
  return undefined;
}

function toText(event: StoredEventRecord): StoredEventText {
  return { ...event, eventId: (JSON.parse(event.envelopeJson) as { id: string }).id };
}

/** Events as the webhook flows read them: the stored envelope text, sent byte for byte as the feed serves it (lib/platform/dynamo/event-batches.ts). */
export class WebhookEventSource implements EventSource {
  constructor(private readonly tableName: string) {}

  async find(organizationId: string, sequence: number): Promise<StoredEventText | undefined> {
    const event = await findEvent(this.tableName, organizationId, sequence);
    return event && toText(event);
  }

  async findWithBatch(organizationId: string, sequence: number): Promise<StoredEventText[]> {
    return (await findEventBatch(this.tableName, organizationId, sequence)).map(toText);
  }

  async readFrom(organizationId: string, fromSequence: number, maxItems: number): Promise<StoredEventText[]> {
    return (await readEventsFrom(this.tableName, organizationId, fromSequence, maxItems)).map(toText);
  }

  async readPage(organizationId: string, fromSequence: number, maxEvents: number): Promise<{ events: StoredEventText[]; more: boolean }> {
    const page = await readEventPage(this.tableName, organizationId, fromSequence, maxEvents);
    return { events: page.events.map(toText), more: page.more };
  }

  lastSequence(organizationId: string): Promise<number> {
    return readLastSequence(this.tableName, organizationId);
  }
}

/**
 * Sends made in the same turn of the event loop go out together, 10 to a SendMessageBatch: the
 * messages of a batch that are deferred at once (docs/webhooks.md "Fairness") cost one request,
 * not one each. Each caller still learns whether its own messages were sent. Built per invocation
 * (functions/workers/deliver-webhooks.ts), so it never joins two invocations' sends.
 */
export class CoalescingDeliveryQueue implements DeliveryQueue {
  private pending: { messages: readonly { message: DeliveryMessage; delaySeconds: number }[]; settle: (error?: unknown) => void }[] = [];

  constructor(private readonly queue: DeliveryQueue) {}

  send(messages: readonly { message: DeliveryMessage; delaySeconds: number }[]): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      if (this.pending.length === 0) setImmediate(() => void this.flush());
      this.pending.push({ messages, settle: (error) => (error === undefined ? resolve() : reject(error)) });
    });
  }

  private async flush(): Promise<void> {
    const callers = this.pending;
    this.pending = [];
    // Callers grouped into requests of at most 10 messages, so one refused request fails only its own callers.
    const groups: (typeof callers)[] = [];
    let size = 10;
    for (const caller of callers) {
      if (size + caller.messages.length > 10) {
        groups.push([]);
        size = 0;
      }
      groups.at(-1)?.push(caller);
      size += caller.messages.length;
    }
    await Promise.all(
      groups.map(async (group) => {
        try {
          await this.queue.send(group.flatMap((caller) => caller.messages));
          for (const caller of group) caller.settle();
        } catch (error) {
          for (const caller of group) caller.settle(error);
        }
      }),
    );
  }
}
