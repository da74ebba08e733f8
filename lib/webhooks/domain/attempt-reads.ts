import { LRUCache } from 'lru-cache';
import type { StoredEndpoint } from './endpoint.ts';
import type { DeliveryMessage, EndpointStorage, EventSource, StoredEventText } from './ports.ts';
import { EVENT_RETENTION_DAYS } from '../../platform/events/types.ts';

/**
 * What an attempt reads before it sends: the endpoint and the event's envelope (docs/webhooks.md
 * "Delivery"). A worker container keeps both for a while, so attempts of one event to several
 * endpoints, or of many events to one endpoint, do not each read them:
 * - an envelope never changes once committed: kept up to `eventBytes` of envelopes, for a minute
 *   (an event past retention is then still sent once more at most a minute later). A read
 *   brings the whole stored batch the event was committed in (up to 90 events, one item) and
 *   keeps every event of it, and an attempt whose event is not kept first waits (two round trips
 *   at most) for its organization's reads on their way from sequences near enough to share its
 *   batch: the attempts of a burst of events read each batch about once, not once per event and
 *   endpoint;
 * - an endpoint is kept `endpointMs` (a second in service): a change made elsewhere (a PUT, a
 *   rotation, a disable, a delete) reaches this container's attempts within that time. A change
 *   this container makes (marking the endpoint failing, disabling it) drops its entry at once.
 * With `endpointMs` 0 and `eventBytes` 0 every attempt reads both (tests of other concerns).
 *
 * What is kept (`AttemptCaches`) is the container's, built at module scope; the reads on their way
 * that an attempt waits for are one invocation's (`AttemptReads`, built per invocation): on
 * Lambda two invocations never share a read, so locally they do not either.
 */

export interface AttemptReadLimits {
  endpointMs: number;
  eventBytes: number;
}

export const ATTEMPT_READS_IN_SERVICE: AttemptReadLimits = { endpointMs: 1000, eventBytes: 16 * 1024 * 1024 };
const EVENT_KEEP_MS = 60_000;
/** A stored batch holds at most this many events (docs/events.md "How events are stored"): reads farther apart never share one. */
const MAX_EVENTS_PER_BATCH = 90;
const MAX_ENDPOINTS = 2000;

/** Endpoints and envelopes a container keeps between attempts (and invocations). */
export class AttemptCaches {
  readonly endpoints: LRUCache<string, StoredEndpoint> | undefined;
  readonly events: LRUCache<string, StoredEventText> | undefined;

  constructor(limits: AttemptReadLimits) {
    if (limits.endpointMs > 0) this.endpoints = new LRUCache({ max: MAX_ENDPOINTS, ttl: limits.endpointMs });
    if (limits.eventBytes > 0)
      this.events = new LRUCache({ maxSize: limits.eventBytes, ttl: EVENT_KEEP_MS, sizeCalculation: (event) => Math.max(1, event.envelopeJson.length) });
  }
}

/**
 * The event as a live first attempt's message carries it (lib/webhooks/domain/dispatch.ts), while
 * the event is within its retention: past it the stored event is gone, and the read says so.
 */
export function carriedEvent(message: Extract<DeliveryMessage, { kind: 'attempt' }>, now: Date): StoredEventText | undefined {
  const named = message.event;
  if (typeof named?.envelopeJson !== 'string') return undefined;
  if (now.getTime() - Date.parse(named.committedAt) >= EVENT_RETENTION_DAYS * 86_400_000) return undefined;
  return { sequence: message.sequence, eventId: named.eventId, type: named.type, committedAt: named.committedAt, envelopeJson: named.envelopeJson };
}

export class AttemptReads {
  private readonly endpoints: LRUCache<string, StoredEndpoint> | undefined;
  private readonly events: LRUCache<string, StoredEventText> | undefined;
  /** Per organization, this invocation's reads of events on their way, by the sequence each asked for. */
  private readonly reading = new Map<string, Map<number, Promise<StoredEventText[]>>>();

  constructor(
    private readonly sources: { endpoints: Pick<EndpointStorage, 'get'>; events: Pick<EventSource, 'find' | 'findWithBatch'> },
    caches: AttemptCaches,
  ) {
    this.endpoints = caches.endpoints;
    this.events = caches.events;
  }

  async endpoint(organizationId: string, endpointId: string): Promise<StoredEndpoint | undefined> {
    const key = `${organizationId}#${endpointId}`;
    const kept = this.endpoints?.get(key);
    if (kept) return kept;
    const stored = await this.sources.endpoints.get(organizationId, endpointId);
    if (stored) this.endpoints?.set(key, stored);
    return stored;
  }

  /** The event's stored text: `carried` when its message brought it (kept like a read one), else kept or read. */
  async event(organizationId: string, sequence: number, carried?: StoredEventText): Promise<StoredEventText | undefined> {
    const key = `${organizationId}#${sequence}`;
    const events = this.events;
    if (carried) {
      if (events && carried.envelopeJson.length <= events.maxSize) events.set(key, carried);
      return carried;
    }
    if (!events) return this.sources.events.find(organizationId, sequence);
    const kept = events.get(key);
    if (kept) return kept;
    // A read on its way from a sequence close enough to share this event's stored batch may bring
    // it: waited for (twice at most, for the reads begun while waiting), then this one reads. A
    // failed read is its own attempt's.
    const waited = new Set<Promise<StoredEventText[]>>();
    for (let round = 0; round < 2; round += 1) {
      const near = [...(this.reading.get(organizationId) ?? [])]
        .filter(([from, read]) => Math.abs(from - sequence) < MAX_EVENTS_PER_BATCH && !waited.has(read))
        .map(([, read]) => read);
      if (near.length === 0) break;
      for (const read of near) waited.add(read);
      await Promise.allSettled(near);
      const brought = events.get(key);
      if (brought) return brought;
    }
    const reads = this.reading.get(organizationId) ?? new Map<number, Promise<StoredEventText[]>>();
    this.reading.set(organizationId, reads);
    const read = this.readBatch(organizationId, sequence);
    reads.set(sequence, read);
    try {
      return (await read).find((event) => event.sequence === sequence);
    } finally {
      if (reads.get(sequence) === read) reads.delete(sequence);
      if (reads.size === 0 && this.reading.get(organizationId) === reads) this.reading.delete(organizationId);
    }
  }

  private async readBatch(organizationId: string, sequence: number): Promise<StoredEventText[]> {
    const { events: source } = this.sources;
    const read = source.findWithBatch
      ? await source.findWithBatch(organizationId, sequence)
      : [await source.find(organizationId, sequence)].filter((event) => event !== undefined);
    for (const event of read) {
      // One larger than the whole budget is not kept (LRUCache refuses it).
      if (this.events && event.envelopeJson.length <= this.events.maxSize) this.events.set(`${organizationId}#${event.sequence}`, event);
    }
    return read;
  }

  /** This container changed the endpoint: its next attempt reads it again. */
  forgetEndpoint(organizationId: string, endpointId: string): void {
    this.endpoints?.delete(`${organizationId}#${endpointId}`);
  }
}
