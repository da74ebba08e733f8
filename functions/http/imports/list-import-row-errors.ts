import { chainDependencies } from '../../../lib/composition.ts';
import { cursorKeys } from '../../../lib/config/cursors.ts';
import { requiredEnv } from '../../../lib/config/env.ts';
import { listImportRowErrorsContract } from '../../../lib/contracts/imports/list-import-row-errors.ts';
import { bindOperation } from '../../../lib/contracts/operation.ts';
import { ImportReads } from '../../../lib/domain/imports/read-imports.ts';
import { CursorCodec } from '../../../lib/domain/pagination/cursor.ts';
import { createOperationHandler } from '../../../lib/http/chain.ts';
import { listImportRowErrorsRoute } from '../../../lib/routes/imports.ts';
import { ImportJobsStore } from '../../../lib/store/import-jobs-store.ts';
import { TABLES } from '../../../lib/store/tables.ts';

const reads = new ImportReads(new ImportJobsStore(requiredEnv(TABLES.inventory.envVar)), new CursorCodec(await cursorKeys()));

export const handler = createOperationHandler(bindOperation(listImportRowErrorsRoute, listImportRowErrorsContract), chainDependencies, async ({ path, query, principal }) => ({
  status: 200,
  json: await reads.listRowErrors(principal.organizationId, path.id, query),
}));
