/**
 * The adapters' door of the inventory area: what other areas' store adapters use of its own
 * (docs/architecture.md "Areas and their doors"). Only a store/ file imports it.
 */
export { inventoryListOf, inventoryRecordEntity, itemStockEntity, listSortKeys, naturalKeyClaimEntity } from './entities.ts';
export { naturalKeyClaimKey } from './inventory-lists.ts';
export { InventoryReadStore } from './inventory-reads.ts';
export { InventoryStore } from './inventory-store.ts';
