/**
 * The door of the imports area: what another area's domain, contracts and routes may import of
 * it, nothing more (docs/architecture.md "Areas and their doors").
 */
export type { ImportColumn, RowError } from './domain/types.ts';
