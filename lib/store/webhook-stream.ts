import type { DynamoDBRecord } from 'aws-lambda';
import type { CommittedEvent } from '../domain/webhooks/dispatch.ts';
import { eventEntity } from './entities.ts';

/**
 * The committed events in a batch of the events table's stream (new images): inserts of event
 * items only (the sequence counter and TTL deletions are skipped). Read from the marshalled image
 * directly: the envelope's own id and organization, the item's sequence, type and commit time.
 */
export function committedEventsOf(records: readonly DynamoDBRecord[]): CommittedEvent[] {
  const events: CommittedEvent[] = [];
  for (const record of records) {
    const image = record.dynamodb?.NewImage;
    if (record.eventName !== 'INSERT' || image?.entity?.S !== eventEntity.type) continue;
    const envelope = JSON.parse(image.envelopeJson?.S ?? '{}') as { id?: string; organizationId?: string };
    const sequence = Number(image.sequence?.N);
    if (!envelope.id || !envelope.organizationId || !Number.isInteger(sequence) || !image.type?.S || !image.committedAt?.S) {
      throw new Error(`Stream record ${record.dynamodb?.SequenceNumber ?? '?'} is an event item without its envelope, sequence, type or commit time`);
    }
    events.push({ organizationId: envelope.organizationId, sequence, eventId: envelope.id, type: image.type.S, committedAt: image.committedAt.S });
  }
  return events;
}
