import { chainDependencies } from '../../../lib/composition.ts';
import { cursorKeys } from '../../../lib/config/cursors.ts';
import { listImportKindsContract } from '../../../lib/contracts/imports/list-import-kinds.ts';
import { bindOperation } from '../../../lib/contracts/operation.ts';
import { listImportKinds } from '../../../lib/domain/imports/list-kinds.ts';
import { CursorCodec } from '../../../lib/domain/pagination/cursor.ts';
import { createOperationHandler } from '../../../lib/http/chain.ts';
import { listImportKindsRoute } from '../../../lib/routes/imports.ts';

const cursors = new CursorCodec(await cursorKeys());

export const handler = createOperationHandler(bindOperation(listImportKindsRoute, listImportKindsContract), chainDependencies, async ({ query, principal }) => ({
  status: 200,
  json: await listImportKinds(principal.organizationId, query, cursors),
}));
