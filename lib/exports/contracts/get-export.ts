import { exportPath } from './exports.ts';
import { defineOperation } from '../../platform/contracts/operation.ts';

/** GET /v1/exports/{id} (docs/exports.md "Routes"). */
export const getExportContract = defineOperation({ operationId: 'getExport', request: { path: exportPath } });
