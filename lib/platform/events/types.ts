/**
 * The event types the service emits (docs/events.md "Catalog"). The domain owns the names; the
 * catalog's schemas (lib/events/contracts/events.ts) and the feed's `type` filter derive from this list.
 * Plain values without zod, so a function that needs only a name does not bundle the catalog.
 */
export const EVENT_TYPES = [
  'stock.changed',
  'item.created',
  'item.updated',
  'movement.created',
  'po.received',
  'count.completed',
  'low-stock',
  'export.completed',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export const EVENT_VERSION = 1;

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}

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
  version: typeof EVENT_VERSION;
  occurredAt: string;
  organizationId: string;
  data: Record<string, unknown>;
}

/** Events are kept this long (docs/events.md "Reading the feed", rule 5); DynamoDB TTL deletes them afterwards. */
export const EVENT_RETENTION_DAYS = 30;
