import { requiredEnv } from '../../../lib/platform/config/env.ts';
import { BomReads } from '../../../lib/boms/domain/reads.ts';
import type { CursorCodec } from '../../../lib/platform/pagination/cursor.ts';
import { BomsStore } from '../../../lib/boms/store/boms-store.ts';
import { TABLES } from '../../../lib/platform/storage/tables.ts';

/**
 * The BOM reads a function builds once, at cold start. Only list routes pass cursors, so only
 * their bundles carry the cursor secret's reader (lib/platform/config/cursors.ts).
 */
export const bomReads = (cursors?: CursorCodec) => new BomReads(new BomsStore(requiredEnv(TABLES.inventory.envVar)), cursors);
