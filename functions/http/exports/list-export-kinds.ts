import { chainDependencies } from '../../../lib/composition.ts';
import { listExportKindsContract } from '../../../lib/contracts/exports/list-export-kinds.ts';
import { bindOperation } from '../../../lib/contracts/operation.ts';
import { exportKindsList } from '../../../lib/domain/exports/reads.ts';
import { createOperationHandler } from '../../../lib/http/chain.ts';
import { listExportKindsRoute } from '../../../lib/routes/exports.ts';

export const handler = createOperationHandler(bindOperation(listExportKindsRoute, listExportKindsContract), chainDependencies, async () => ({ status: 200, json: exportKindsList() }));
