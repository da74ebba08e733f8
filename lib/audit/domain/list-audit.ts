import { ValidationError } from '../../platform/core/errors.ts';
import type { CursorCodec } from '../../platform/pagination/cursor.ts';
import { invalidCursorError } from '../../platform/pagination/cursor.ts';
import type { AuditEvent, AuditKind } from '../../platform/audit/types.ts';

/** GET /v1/audit/events (docs/api-guide.md "Audit"): newest first, `fromUtc` inclusive, `toUtc` exclusive. */

export interface AuditQuery {
  limit: number;
  cursor?: string;
  kind?: AuditKind;
  fromUtc?: string;
  toUtc?: string;
}

export interface AuditLogStore {
  /** Newest first within [from, to), strictly older than `before` (a position from a cursor). */
  list(
    organizationId: string,
    options: { limit: number; kind?: AuditKind; from?: string; to?: string; before?: string },
  ): Promise<{ events: AuditEvent[]; last?: string; more: boolean }>;
}

const ENDPOINT = 'GET /v1/audit/events';

/** Milliseconds since the epoch plus the sub-millisecond digits Date drops. */
function instant(dateTime: string): { ms: number; beyondMs: string } {
  const fraction = /\.(\d+)/.exec(dateTime)?.[1] ?? '';
  return { ms: Date.parse(dateTime), beyondMs: fraction.slice(3).replace(/0+$/, '') };
}

function compareInstants(a: string, b: string): number {
  const [x, y] = [instant(a), instant(b)];
  if (x.ms !== y.ms) return x.ms - y.ms;
  const width = Math.max(x.beyondMs.length, y.beyondMs.length);
  return x.beyondMs.padEnd(width, '0').localeCompare(y.beyondMs.padEnd(width, '0'));
}

/**
 * Stored times have millisecond precision; a bound finer than that is rounded up, which keeps
 * `fromUtc` inclusive and `toUtc` exclusive exactly (an event at .331 is before .3319).
 */
function ceilToMillisecond(dateTime: string): string {
  const { ms, beyondMs } = instant(dateTime);
  return new Date(beyondMs === '' ? ms : ms + 1).toISOString();
}

export class AuditLog {
  constructor(
    private readonly store: AuditLogStore,
    private readonly cursors: CursorCodec,
  ) {}

  async list(organizationId: string, query: AuditQuery) {
    // Normalized to the stored form (toISOString, milliseconds), so string order is time order.
    const from = query.fromUtc === undefined ? undefined : ceilToMillisecond(query.fromUtc);
    const to = query.toUtc === undefined ? undefined : ceilToMillisecond(query.toUtc);
    if (query.fromUtc !== undefined && query.toUtc !== undefined && compareInstants(query.fromUtc, query.toUtc) > 0) {
      throw new ValidationError([{ location: 'query', name: 'fromUtc', code: 'out-of-range', message: 'fromUtc must not be after toUtc.' }]);
    }
    const binding = { organizationId, endpoint: ENDPOINT, filters: { kind: query.kind, fromUtc: from, toUtc: to } };
    let before: string | undefined;
    if (query.cursor !== undefined) {
      const position = await this.cursors.decode(query.cursor, binding);
      if (typeof position !== 'string') throw invalidCursorError();
      before = position;
    }
    const page = await this.store.list(organizationId, { limit: query.limit, kind: query.kind, from, to, before });
    return {
      data: page.events,
      page: { nextCursor: page.more && page.last !== undefined ? this.cursors.encode(page.last, binding) : null },
    };
  }
}
