import { requiredEnv } from '../../../lib/config/env.ts';
import { InventoryReads } from '../../../lib/domain/inventory/reads.ts';
import type { CursorCodec } from '../../../lib/domain/pagination/cursor.ts';
import { InventoryReadStore } from '../../../lib/store/inventory-reads.ts';
import { TABLES } from '../../../lib/store/tables.ts';

/**
 * The inventory reads a function builds once, at cold start. Only list routes pass cursors, so
 * only their bundles carry the cursor secret's reader (lib/config/cursors.ts).
 */
export const inventoryReads = (cursors?: CursorCodec) => new InventoryReads(new InventoryReadStore(requiredEnv(TABLES.inventory.envVar)), cursors);
