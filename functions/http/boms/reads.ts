import { requiredEnv } from '../../../lib/config/env.ts';
import { BomReads } from '../../../lib/domain/boms/reads.ts';
import type { CursorCodec } from '../../../lib/domain/pagination/cursor.ts';
import { BomsStore } from '../../../lib/store/boms-store.ts';
import { TABLES } from '../../../lib/store/tables.ts';

/**
 * The BOM reads a function builds once, at cold start. Only list routes pass cursors, so only
 * their bundles carry the cursor secret's reader (lib/config/cursors.ts).
 */
export const bomReads = (cursors?: CursorCodec) => new BomReads(new BomsStore(requiredEnv(TABLES.inventory.envVar)), cursors);
