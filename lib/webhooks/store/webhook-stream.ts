import type { DynamoDBRecord } from 'aws-lambda';
import type { CommittedEvent } from '../domain/dispatch.ts';
import { eventsOfImage } from '../../platform/dynamo/event-batches.ts';

/**
 * The committed events in a batch of the events table's stream (new images): inserts of event
 * items only (the sequence counter and TTL deletions are skipped). One insert is one event batch,
 * expanded into its events in order (a legacy item: its one event); read from the marshalled
 * image directly through lib/platform/dynamo/event-batches.ts, the envelope's own id and organization.
 */
export function committedEventsOf(records: readonly DynamoDBRecord[]): CommittedEvent[] {
  const events: CommittedEvent[] = [];
  for (const record of records) {
    const image = record.dynamodb?.NewImage;
    if (record.eventName !== 'INSERT' || !image) continue;
    const stored = eventsOfImage(image);
    if (!stored) continue;
    if (stored.length === 0) throw new Error(`Stream record ${record.dynamodb?.SequenceNumber ?? '?'} is an event item without events`);
    for (const { sequence, type, committedAt, envelopeJson } of stored) {
      const envelope = JSON.parse(envelopeJson ?? '{}') as { id?: string; organizationId?: string };
      if (envelopeJson === undefined || !envelope.id || !envelope.organizationId || !Number.isInteger(sequence) || !type || !committedAt) {
        throw new Error(`Stream record ${record.dynamodb?.SequenceNumber ?? '?'} is an event item without its envelope, sequence, type or commit time`);
      }
      events.push({ organizationId: envelope.organizationId, sequence, eventId: envelope.id, type, committedAt, envelopeJson });
    }
  }
  return events;
}
