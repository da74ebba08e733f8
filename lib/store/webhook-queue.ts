import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { DeliveryMessage, DeliveryQueue, EventSource, StoredEventText } from '../domain/webhooks/ports.ts';
import { documentClient } from './dynamodb-client.ts';
import { eventEntity, eventSequenceEntity } from './entities.ts';
import { keys, MAX_SEQUENCE } from './keys.ts';
import { checkStoredBody, sqsRequest } from './signed-sqs.ts';

/** The webhook delivery queue (docs/webhooks.md "Retry waits"): JSON messages, sent in batches of up to 10 as signed requests (lib/store/signed-sqs.ts). */
export class WebhookDeliveryQueue implements DeliveryQueue {
  constructor(private readonly queueUrl: string) {}

  async send(messages: readonly { message: DeliveryMessage; delaySeconds: number }[]): Promise<void> {
    for (let start = 0; start < messages.length; start += 10) {
      const chunk = messages.slice(start, start + 10);
      const entries = chunk.map(({ message, delaySeconds }, index) => ({ Id: `m${index}`, MessageBody: JSON.stringify(message), DelaySeconds: delaySeconds }));
      const { Successful = [], Failed } = await sqsRequest<{ Successful?: { Id: string; MD5OfMessageBody?: unknown }[]; Failed?: { Code?: string }[] }>(this.queueUrl, 'SendMessageBatch', { Entries: entries });
      for (const sent of Successful) checkStoredBody(entries.find((entry) => entry.Id === sent.Id)?.MessageBody ?? '', sent.MD5OfMessageBody);
      if (Failed && Failed.length > 0) throw new Error(`The delivery queue refused ${Failed.length} messages: ${Failed.map((failure) => failure.Code).join(', ')}`);
    }
  }
}

/** A delivery-queue message's body, or undefined for anything else (a poison message). */
export function parseDeliveryMessage(body: string): DeliveryMessage | undefined {
  try {
    const parsed = JSON.parse(body) as Partial<DeliveryMessage> & Record<string, unknown>;
    if (parsed.kind === 'attempt' && typeof parsed.organizationId === 'string' && typeof parsed.endpointId === 'string' && typeof parsed.sequence === 'number' && typeof parsed.origin === 'string' && typeof parsed.attempt === 'number' && typeof parsed.dueAt === 'number') {
      return parsed as DeliveryMessage;
    }
    if (parsed.kind === 'replay' && typeof parsed.organizationId === 'string' && typeof parsed.replayId === 'string' && typeof parsed.sentAt === 'number') return parsed as DeliveryMessage;
  } catch {
    // Not JSON.
  }
  return undefined;
}

function toText(item: Record<string, unknown>): StoredEventText {
  const envelopeJson = item.envelopeJson as string;
  return { sequence: item.sequence as number, eventId: (JSON.parse(envelopeJson) as { id: string }).id, type: item.type as string, committedAt: item.committedAt as string, envelopeJson };
}

/** Events as the webhook flows read them: the stored envelope text, sent byte for byte as the feed serves it. */
export class WebhookEventSource implements EventSource {
  constructor(private readonly tableName: string) {}

  async find(organizationId: string, sequence: number): Promise<StoredEventText | undefined> {
    const { Item } = await documentClient.send(new GetCommand({ TableName: this.tableName, Key: eventEntity.key({ organizationId, sequence }), ConsistentRead: true }));
    return Item ? toText(Item) : undefined;
  }

  async readFrom(organizationId: string, fromSequence: number, maxItems: number): Promise<StoredEventText[]> {
    const { Items = [] } = await documentClient.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': keys.eventsOf(organizationId), ':from': keys.eventSortKey(Math.min(fromSequence, MAX_SEQUENCE)), ':to': keys.eventSortKey(MAX_SEQUENCE) },
        ConsistentRead: true,
        Limit: maxItems,
      }),
    );
    return Items.map(toText);
  }

  async lastSequence(organizationId: string): Promise<number> {
    const { Item } = await documentClient.send(new GetCommand({ TableName: this.tableName, Key: eventSequenceEntity.key({ organizationId }), ConsistentRead: true }));
    return typeof Item?.last === 'number' ? Item.last : 0;
  }
}
