import * as z from '../../platform/contracts/zod.ts';
import { AUDIT_KINDS } from '../../platform/audit/types.ts';
import { defineOperation } from '../../platform/contracts/operation.ts';
import { cursorParam, dateTimeString, limitParam } from '../../platform/contracts/primitives.ts';

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
