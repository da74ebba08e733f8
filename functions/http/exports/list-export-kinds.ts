import { chainDependencies } from '../../../lib/app/composition.ts';
import { cursorKeys } from '../../../lib/platform/config/cursors.ts';
import { listExportKindsContract } from '../../../lib/exports/contracts/list-export-kinds.ts';
import { bindOperation } from '../../../lib/platform/contracts/operation.ts';
import { exportKindsList } from '../../../lib/exports/domain/reads.ts';
import { CursorCodec } from '../../../lib/platform/pagination/cursor.ts';
import { createOperationHandler } from '../../../lib/platform/http/chain.ts';
import { listExportKindsRoute } from '../../../lib/exports/routes.ts';

const cursors = new CursorCodec(await cursorKeys());

export const handler = createOperationHandler(
  bindOperation(listExportKindsRoute, listExportKindsContract),
  chainDependencies,
  async ({ query, principal }) => ({
    status: 200,
    json: await exportKindsList(principal.organizationId, query, cursors),
  }),
);
