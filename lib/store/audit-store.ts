import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { AuditLogStore } from '../domain/audit/list-audit.ts';
import type { AuditEvent, AuditKind } from '../domain/audit/types.ts';
import { documentClient } from './clients.ts';
import { keys } from './keys.ts';
import type { TransactItem } from './transaction-items.ts';

/**
 * The audit table: one partition per organization, sorted by time then id; gsi1 narrows to one
 * kind (eventually consistent, as every GSI). Filters are key ranges, so a page reads only
 * what it returns (plus one item to know whether more exist).
 */

export function auditPut(tableName: string, organizationId: string, audit: AuditEvent): TransactItem {
  const sk = keys.auditSortKey(audit.occurredAt, audit.id);
  return {
    Put: {
      TableName: tableName,
      Item: {
        pk: keys.auditOf(organizationId),
        sk,
        gsi1pk: keys.auditOfKind(organizationId, audit.kind),
        gsi1sk: sk,
        entity: 'audit-event',
        schemaVersion: 2,
        organizationId,
        // JSON text: served as written, field order included.
        auditJson: JSON.stringify(audit),
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

export class AuditStore implements AuditLogStore {
  constructor(private readonly tableName: string) {}

  async list(organizationId: string, options: { limit: number; kind?: AuditKind; from?: string; to?: string; before?: string }) {
    const byKind = options.kind !== undefined;
    const partition = byKind ? keys.auditOfKind(organizationId, options.kind as AuditKind) : keys.auditOf(organizationId);
    const [pkName, skName] = byKind ? ['gsi1pk', 'gsi1sk'] : ['pk', 'sk'];
    // `AUD#<to>` sorts before every key of an event at exactly `to`: the upper bound is exclusive.
    const lower = options.from === undefined ? 'AUD#' : `AUD#${options.from}`;
    let upper = options.to === undefined ? 'AUD$' : `AUD#${options.to}`;
    if (options.before !== undefined && options.before < upper) upper = options.before;
    const result = await documentClient.send(
      new QueryCommand({
        TableName: this.tableName,
        IndexName: byKind ? 'gsi1' : undefined,
        KeyConditionExpression: `${pkName} = :pk AND ${skName} BETWEEN :lower AND :upper`,
        ExpressionAttributeValues: { ':pk': partition, ':lower': lower, ':upper': upper },
        ScanIndexForward: false,
        ConsistentRead: !byKind,
        // One extra to know whether more exist, one more for the inclusive cursor position.
        Limit: options.limit + (options.before === undefined ? 1 : 2),
      }),
    );
    // BETWEEN is inclusive; the cursor position itself was already served.
    const items = (result.Items ?? []).filter((item) => item[skName] !== options.before);
    const page = items.slice(0, options.limit);
    const last = page.at(-1)?.[skName] as string | undefined;
    return { events: page.map((item) => JSON.parse(item.auditJson as string) as AuditEvent), last, more: items.length > options.limit };
  }
}
