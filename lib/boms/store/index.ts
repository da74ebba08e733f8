/**
 * The adapters' door of the boms area: what other areas' store adapters use of its own
 * (docs/architecture.md "Areas and their doors"). Only a store/ file imports it.
 */
export { BomsStore } from './boms-store.ts';
export { storedBuildOf } from './build-provenance-items.ts';
export type { StoredBuild } from './build-provenance-items.ts';
export { BuildProvenanceStore } from './build-provenance-store.ts';
export { bomEntity, LOT_CONSUMED_BY, LOT_PRODUCED_BY, lotKeys, recordPointerEntity } from './entities.ts';
export type { LotBuildsPrefix } from './entities.ts';
