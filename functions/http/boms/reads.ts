import { cursorSecret } from '../../../lib/config/cursors.ts';
import { requiredEnv } from '../../../lib/config/env.ts';
import { BomReads } from '../../../lib/domain/boms/reads.ts';
import { CursorCodec } from '../../../lib/domain/pagination/cursor.ts';
import { BomsStore } from '../../../lib/store/boms-store.ts';
import { TABLES } from '../../../lib/store/tables.ts';

/** The BOM reads a function builds once, at cold start; only list routes hold the cursor secret. */
export const bomReads = (options: { lists: boolean }) =>
  new BomReads(new BomsStore(requiredEnv(TABLES.inventory.envVar)), options.lists ? new CursorCodec(cursorSecret()) : undefined);
