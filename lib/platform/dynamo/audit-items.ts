import type { AuditEvent } from '../audit/types.ts';
import { entityItem } from './entity.ts';
import { auditEventEntity } from './entities.ts';
import type { TransactItem } from './transaction-items.ts';

/** The audit entry a command's transaction puts (docs/api-guide.md "Audit"). */

export function auditPut(tableName: string, organizationId: string, audit: AuditEvent): TransactItem {
  return {
    Put: {
      TableName: tableName,
      Item: entityItem(
        auditEventEntity,
        { organizationId, occurredAt: audit.occurredAt, id: audit.id, kind: audit.kind },
        {
          organizationId,
          // JSON text: served as written, field order included.
          auditJson: JSON.stringify(audit),
        },
      ),
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}
