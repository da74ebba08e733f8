import { exportPath } from './exports.ts';
import { defineOperation } from '../../platform/contracts/operation.ts';

/** GET /v1/exports/{id}/download-url (docs/exports.md "Routes"). */
export const getExportDownloadUrlContract = defineOperation({ operationId: 'getExportDownloadUrl', request: { path: exportPath } });
