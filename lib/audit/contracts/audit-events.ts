import * as z from '../../platform/contracts/zod.ts';
import { AUDIT_KINDS } from '../../platform/audit/types.ts';

/**
 * The body of GET /v1/audit/events (docs/api-guide.md "Audit"), for OpenAPI and the tests
 * (lib/app/openapi/areas/audit.ts). Apart from the route's request contract (audit.ts) because
 * responses are not validated at run time: the function need not bundle them.
 */

export const auditEventSchema = z
  .object({
    id: z.string().check(z.regex(/^aud_/)),
    kind: z.enum(AUDIT_KINDS),
    occurredAt: z.iso.datetime(),
    actor: z.object({ type: z.enum(['api-key', 'system']), id: z.string() }),
    target: z.object({ kind: z.string(), id: z.string() }),
    summary: z.string(),
    changes: z.array(z.object({ field: z.string(), from: z.unknown(), to: z.unknown() })),
    traceId: z.nullable(z.string()),
    idempotencyKey: z.nullable(z.string()),
  })
  .check(z.meta({ id: 'AuditEvent' }));

export const auditEventsPageSchema = z
  .object({
    data: z.array(auditEventSchema),
    page: z.object({ nextCursor: z.nullable(z.string()) }),
  })
  .check(z.meta({ id: 'AuditEventsPage' }));
