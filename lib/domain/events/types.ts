import type { EventType } from '../../contracts/events.ts';

/** A domain event as a command states it; the writer gives it an id and its sequence number. */
export interface EventDraft {
  type: EventType;
  data: Record<string, unknown>;
  /** Domain time; defaults to the commit time. */
  occurredAt?: string;
}

/** The wire envelope (docs/events.md "The envelope"), as stored and served. */
export interface EventEnvelope {
  id: string;
  type: EventType;
  version: 1;
  occurredAt: string;
  organizationId: string;
  data: Record<string, unknown>;
}

/** Events are kept this long (docs/events.md "Reading the feed", rule 5); DynamoDB TTL deletes them afterwards. */
export const EVENT_RETENTION_DAYS = 30;
