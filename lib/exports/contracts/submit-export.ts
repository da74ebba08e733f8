import { submitExportBody } from './exports.ts';
import { defineOperation } from '../../platform/contracts/operation.ts';

/** POST /v1/exports (docs/exports.md "Routes"). */
export const submitExportContract = defineOperation({ operationId: 'submitExport', request: { body: submitExportBody } });
