/**
 * The adapters' door of the builds area: what other areas' store adapters use of its own
 * (docs/architecture.md "Areas and their doors"). Only a store/ file imports it.
 */
export { SUBMITTED_BUILD_VERSION } from './builds-store.ts';
