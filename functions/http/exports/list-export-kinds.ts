import { chainDependencies } from '../../../lib/composition.ts';
import { cursorKeys } from '../../../lib/config/cursors.ts';
import { listExportKindsContract } from '../../../lib/contracts/exports/list-export-kinds.ts';
import { bindOperation } from '../../../lib/contracts/operation.ts';
import { exportKindsList } from '../../../lib/domain/exports/reads.ts';
import { CursorCodec } from '../../../lib/domain/pagination/cursor.ts';
import { createOperationHandler } from '../../../lib/http/chain.ts';
import { listExportKindsRoute } from '../../../lib/routes/exports.ts';

const cursors = new CursorCodec(await cursorKeys());

export const handler = createOperationHandler(bindOperation(listExportKindsRoute, listExportKindsContract), chainDependencies, async ({ query, principal }) => ({
  status: 200,
  json: await exportKindsList(principal.organizationId, query, cursors),
}));
