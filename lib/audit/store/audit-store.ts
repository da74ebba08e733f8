import type { AuditLogStore } from '../domain/list-audit.ts';
import type { AuditEvent, AuditKind } from '../../platform/audit/types.ts';
import { readPage, sortKeyRange } from '../../platform/dynamo/entity.ts';
import { AUDIT_PREFIX } from '../../platform/dynamo/entities.ts';
import { keys } from '../../platform/dynamo/keys.ts';

/**
 * The audit table: one partition per organization, sorted by time then id; gsi1 narrows to one
 * kind (eventually consistent, as every GSI). Filters are key ranges, so a page reads only
 * what it returns (plus one item to know whether more exist).
 */
export class AuditStore implements AuditLogStore {
  constructor(private readonly tableName: string) {}

  async list(organizationId: string, options: { limit: number; kind?: AuditKind; from?: string; to?: string; before?: string }) {
    const byKind = options.kind !== undefined;
    const all = sortKeyRange(AUDIT_PREFIX);
    // `AUD#<to>` sorts before every key of an event at exactly `to`: the upper bound is exclusive.
    const page = await readPage({
      tableName: this.tableName,
      indexName: byKind ? 'gsi1' : undefined,
      partition: byKind
        ? { name: 'gsi1pk', value: keys.auditOfKind(organizationId, options.kind as AuditKind) }
        : { name: 'pk', value: keys.auditOf(organizationId) },
      sortKey: {
        name: byKind ? 'gsi1sk' : 'sk',
        lower: options.from === undefined ? all.lower : `${all.lower}${options.from}`,
        upper: options.to === undefined ? all.upper : `${all.lower}${options.to}`,
      },
      after: options.before,
      limit: options.limit,
      newestFirst: true,
    });
    return { events: page.items.map((item) => JSON.parse(item.auditJson as string) as AuditEvent), last: page.last, more: page.more };
  }
}
