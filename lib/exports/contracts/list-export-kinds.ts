import * as z from '../../platform/contracts/zod.ts';
import { defineOperation } from '../../platform/contracts/operation.ts';
import { cursorParam, limitParam } from '../../platform/contracts/primitives.ts';

/** GET /v1/exports/kinds (docs/exports.md "Routes"), paged as every list (docs/api-guide.md "Lists and cursors"). */

export const listExportKindsQuery = z.strictObject({ limit: limitParam, cursor: cursorParam });

export const listExportKindsContract = defineOperation({ operationId: 'listExportKinds', request: { query: listExportKindsQuery } });
