/**
 * The adapters' door of the imports area: what other areas' store adapters use of its own
 * (docs/architecture.md "Areas and their doors"). Only a store/ file imports it.
 */
export { importJobEntity } from './entities.ts';
export { ChunkAlreadyAppliedError } from './import-jobs-store.ts';
