import type { AUDIT_ROUTES } from '../../../audit/routes.ts';
import { listAuditEventsContract } from '../../../audit/contracts/audit.ts';
import { auditEventsPageSchema } from '../../../audit/contracts/audit-events.ts';
import type { OpenApiArea } from './types.ts';

/** The Audit area in the OpenAPI document. */
export const auditOpenApi = {
  tag: { name: 'Audit', description: 'Read the audit trail of the organization.' },
  operations: {
    listAuditEvents: { contract: listAuditEventsContract, response: auditEventsPageSchema },
  },
  problemCodes: {},
} satisfies OpenApiArea<typeof AUDIT_ROUTES>;
