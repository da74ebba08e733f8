/** Audit log (docs/api-guide.md "Audit"): one entry per successful write and per key created or revoked. */

export const AUDIT_KINDS = [
  'bom.created',
  'bom.updated',
  'attachment.uploaded',
  'attachment.linked',
  'attachment.deleted',
  'import.submitted',
  'import.completed',
  'import.failed',
  'export.submitted',
  'export.completed',
  'export.failed',
  'api-key.created',
  'api-key.revoked',
  'webhook-endpoint.created',
  'webhook-endpoint.updated',
  'webhook-endpoint.deleted',
  'webhook-endpoint.secret-rotated',
  'webhook-endpoint.disabled',
  'stock.adjusted',
  'stock.transferred',
  'stock.counted',
  'stock.received',
  'reservation.created',
  'reservation.released',
  'reservation.fulfilled',
  'reservation.expired',
  'build.submitted',
  'build.succeeded',
  'build.failed',
  'item.created',
  'item.updated',
  'location.created',
  'location.updated',
] as const;

export type AuditKind = (typeof AUDIT_KINDS)[number];

export interface AuditActor {
  type: 'api-key' | 'system';
  id: string;
}

export interface AuditChange {
  field: string;
  from: unknown;
  to: unknown;
}

/** What a command says about itself; the writer adds id, time, actor, trace and key. */
export interface AuditDraft {
  kind: AuditKind;
  target: { kind: string; id: string };
  summary: string;
  changes: AuditChange[];
}

export interface AuditEvent extends AuditDraft {
  id: string;
  occurredAt: string;
  actor: AuditActor;
  traceId: string | null;
  idempotencyKey: string | null;
}
