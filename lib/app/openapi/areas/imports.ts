import type { IMPORT_ROUTES } from '../../../imports/routes.ts';
import { getImportJobContract } from '../../../imports/contracts/get-import-job.ts';
import { listImportKindsContract } from '../../../imports/contracts/list-import-kinds.ts';
import { listImportRowErrorsContract } from '../../../imports/contracts/list-import-row-errors.ts';
import { importJobSchema, importKindsPageSchema, rowErrorsPageSchema } from '../../../imports/contracts/responses.ts';
import { submitImportJobContract } from '../../../imports/contracts/submit-import-job.ts';
import type { OpenApiArea } from './types.ts';

/** The Imports area in the OpenAPI document. */
export const importsOpenApi = {
  tag: { name: 'Imports', description: 'List import kinds, submit file import jobs, poll jobs and read their row errors.' },
  operations: {
    listImportKinds: { contract: listImportKindsContract, response: importKindsPageSchema },
    submitImportJob: { contract: submitImportJobContract, response: importJobSchema },
    getImportJob: { contract: getImportJobContract, response: importJobSchema },
    listImportRowErrors: { contract: listImportRowErrorsContract, response: rowErrorsPageSchema },
  },
  problemCodes: {
    submitImportJob: { 404: ['customer-api.imports.unknown-kind'] },
    listImportRowErrors: { 409: ['customer-api.imports.job-not-finished'] },
  },
} satisfies OpenApiArea<typeof IMPORT_ROUTES>;
