import { chainDependencies } from '../../../lib/app/composition.ts';
import { cursorKeys } from '../../../lib/platform/config/cursors.ts';
import { requiredEnv } from '../../../lib/platform/config/env.ts';
import { listImportRowErrorsContract } from '../../../lib/imports/contracts/list-import-row-errors.ts';
import { bindOperation } from '../../../lib/platform/contracts/operation.ts';
import { ImportReads } from '../../../lib/imports/domain/read-imports.ts';
import { CursorCodec } from '../../../lib/platform/pagination/cursor.ts';
import { createOperationHandler } from '../../../lib/platform/http/chain.ts';
import { listImportRowErrorsRoute } from '../../../lib/imports/routes.ts';
import { ImportJobsStore } from '../../../lib/imports/store/import-jobs-store.ts';
import { TABLES } from '../../../lib/platform/storage/tables.ts';

const reads = new ImportReads(new ImportJobsStore(requiredEnv(TABLES.inventory.envVar)), new CursorCodec(await cursorKeys()));

export const handler = createOperationHandler(
  bindOperation(listImportRowErrorsRoute, listImportRowErrorsContract),
  chainDependencies,
  async ({ path, query, principal }) => ({
    status: 200,
    json: await reads.listRowErrors(principal.organizationId, path.id, query),
  }),
);
