import { chainDependencies } from '../../../lib/app/composition.ts';
import { cursorKeys } from '../../../lib/platform/config/cursors.ts';
import { listImportKindsContract } from '../../../lib/imports/contracts/list-import-kinds.ts';
import { bindOperation } from '../../../lib/platform/contracts/operation.ts';
import { listImportKinds } from '../../../lib/imports/domain/list-kinds.ts';
import { CursorCodec } from '../../../lib/platform/pagination/cursor.ts';
import { createOperationHandler } from '../../../lib/platform/http/chain.ts';
import { listImportKindsRoute } from '../../../lib/imports/routes.ts';

const cursors = new CursorCodec(await cursorKeys());

export const handler = createOperationHandler(
  bindOperation(listImportKindsRoute, listImportKindsContract),
  chainDependencies,
  async ({ query, principal }) => ({
    status: 200,
    json: await listImportKinds(principal.organizationId, query, cursors),
  }),
);
