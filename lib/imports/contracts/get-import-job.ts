import { importJobPath } from './imports.ts';
import { defineOperation } from '../../platform/contracts/operation.ts';

/** GET /v1/imports/jobs/{id} (docs/imports.md). */
export const getImportJobContract = defineOperation({ operationId: 'getImportJob', request: { path: importJobPath } });
