import * as z from 'zod';
import { AUDIT_KINDS } from '../domain/audit/types.ts';
import { defineOperation } from './operation.ts';
import { cursorParam, dateTimeString, limitParam } from './primitives.ts';

/** GET /v1/audit/events (PRODUCT §4). */
export const listAuditEventsQuery = z.strictObject({
  limit: limitParam,
  cursor: cursorParam,
  kind: z.enum(AUDIT_KINDS, { message: `Must be one of: ${AUDIT_KINDS.join(', ')}.` }).optional(),
  fromUtc: dateTimeString.optional(),
  toUtc: dateTimeString.optional(),
});

export const auditEventSchema = z
  .object({
    id: z.string().regex(/^aud_/),
    kind: z.enum(AUDIT_KINDS),
    occurredAt: z.iso.datetime(),
    actor: z.object({ type: z.enum(['api-key', 'system']), id: z.string() }),
    target: z.object({ kind: z.string(), id: z.string() }),
    summary: z.string(),
    changes: z.array(z.object({ field: z.string(), from: z.unknown(), to: z.unknown() })),
    traceId: z.string().nullable(),
    idempotencyKey: z.string().nullable(),
  })
  .meta({ id: 'AuditEvent' });

export const auditEventsPageSchema = z
  .object({
    data: z.array(auditEventSchema),
    page: z.object({ nextCursor: z.string().nullable() }),
  })
  .meta({ id: 'AuditEventsPage' });

export const listAuditEventsContract = defineOperation({
  operationId: 'listAuditEvents',
  request: { query: listAuditEventsQuery },
  response: auditEventsPageSchema,
});
