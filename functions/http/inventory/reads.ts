import { requiredEnv } from '../../../lib/platform/config/env.ts';
import { ItemReads } from '../../../lib/inventory/domain/item-reads.ts';
import { InventoryReads } from '../../../lib/inventory/domain/reads.ts';
import type { CursorCodec } from '../../../lib/platform/pagination/cursor.ts';
import { InventoryReadStore } from '../../../lib/inventory/store/inventory-reads.ts';
import { ItemTotalsStore } from '../../../lib/inventory/store/item-stock-reads.ts';
import { TABLES } from '../../../lib/platform/storage/tables.ts';

/**
 * The inventory reads a function builds once, at cold start. Only list routes pass cursors, so
 * only their bundles carry the cursor secret's reader (lib/platform/config/cursors.ts); only the item
 * reads build `itemReads`, so only theirs carry the items' totals.
 */
export const inventoryReads = (cursors?: CursorCodec) => new InventoryReads(new InventoryReadStore(requiredEnv(TABLES.inventory.envVar)), cursors);

/** `GET /v1/items` and `GET /v1/items/{id}`: items with their totals. */
export function itemReads(cursors?: CursorCodec): ItemReads {
  const table = requiredEnv(TABLES.inventory.envVar);
  return new ItemReads(new InventoryReadStore(table), new ItemTotalsStore(table), cursors);
}
