/**
 * The door of the audit area: what another area's domain, contracts and routes may import of
 * it, nothing more (docs/architecture.md "Areas and their doors").
 */
export type { AuditLogStore } from './domain/list-audit.ts';
