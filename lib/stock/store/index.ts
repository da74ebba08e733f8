/**
 * The adapters' door of the stock area: what other areas' store adapters use of its own
 * (docs/architecture.md "Areas and their doors"). Only a store/ file imports it.
 */
export { StockChangeStoreReads } from './stock-change-reads.ts';
export { StockStore } from './stock-store.ts';
export { stockStateByKeys, stockWritesOf } from './stock-writes.ts';
