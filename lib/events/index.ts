/**
 * The door of the events area: what another area's domain, contracts and routes may import of
 * it, nothing more (docs/architecture.md "Areas and their doors").
 */
export type { StoredEvent } from './domain/read-feed.ts';
