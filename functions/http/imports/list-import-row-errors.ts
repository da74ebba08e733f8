import { chainDependencies } from '../../../lib/composition.ts';
import { cursorSecret } from '../../../lib/config/cursors.ts';
import { requiredEnv } from '../../../lib/config/env.ts';
import { listImportRowErrorsContract } from '../../../lib/contracts/imports/list-import-row-errors.ts';
import { ImportReads } from '../../../lib/domain/imports/read-imports.ts';
import { CursorCodec } from '../../../lib/domain/pagination/cursor.ts';
import { createHttpHandler } from '../../../lib/http/chain.ts';
import { ImportJobsStore } from '../../../lib/store/import-jobs-store.ts';
import { TABLES } from '../../../lib/store/tables.ts';

const reads = new ImportReads(new ImportJobsStore(requiredEnv(TABLES.inventory.envVar)), new CursorCodec(cursorSecret()));

export const handler = createHttpHandler(listImportRowErrorsContract, chainDependencies, async ({ path, query, principal }) => ({
  status: 200,
  json: await reads.listRowErrors(principal.organizationId, path.id, query),
}));
