import * as z from './zod.ts';
import { AUDIT_KINDS } from '../domain/audit/types.ts';
import { defineOperation } from './operation.ts';
import { cursorParam, dateTimeString, limitParam } from './primitives.ts';

/** GET /v1/audit/events (docs/api-guide.md "Audit"). */
export const listAuditEventsQuery = z.strictObject({
  limit: limitParam,
  cursor: cursorParam,
  kind: z.optional(z.enum(AUDIT_KINDS, { message: `Must be one of: ${AUDIT_KINDS.join(', ')}.` })),
  fromUtc: z.optional(dateTimeString),
  toUtc: z.optional(dateTimeString),
});

export const listAuditEventsContract = defineOperation({
  operationId: 'listAuditEvents',
  request: { query: listAuditEventsQuery },
});
