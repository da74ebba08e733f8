import { ValidationError } from '../errors.ts';
import type { CursorCodec } from '../pagination/cursor.ts';
import { invalidCursorError } from '../pagination/cursor.ts';
import type { AuditEvent, AuditKind } from './types.ts';

/** GET /v1/audit/events (PRODUCT §4): newest first, `fromUtc` inclusive, `toUtc` exclusive. */

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

export class AuditLog {
  constructor(
    private readonly store: AuditLogStore,
    private readonly cursors: CursorCodec,
  ) {}

  async list(organizationId: string, query: AuditQuery) {
    // Normalized to the stored form (toISOString), so string order is time order.
    const from = query.fromUtc === undefined ? undefined : new Date(query.fromUtc).toISOString();
    const to = query.toUtc === undefined ? undefined : new Date(query.toUtc).toISOString();
    if (from !== undefined && to !== undefined && from > to) {
      throw new ValidationError([{ location: 'query', name: 'fromUtc', code: 'out-of-range', message: 'fromUtc must not be after toUtc.' }]);
    }
    const binding = { organizationId, endpoint: ENDPOINT, filters: { kind: query.kind, fromUtc: from, toUtc: to } };
    let before: string | undefined;
    if (query.cursor !== undefined) {
      const position = this.cursors.decode(query.cursor, binding);
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
