import { defineOperation } from '../operation.ts';

/** GET /v1/exports/kinds (docs/exports.md "Kinds"). */
export const listExportKindsContract = defineOperation({ operationId: 'listExportKinds', request: {} });
