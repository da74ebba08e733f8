import type { IMPORT_ROUTES } from '../../../routes/imports.ts';
import { getImportJobContract } from '../../imports/get-import-job.ts';
import { listImportKindsContract } from '../../imports/list-import-kinds.ts';
import { listImportRowErrorsContract } from '../../imports/list-import-row-errors.ts';
import { importJobSchema, importKindsPageSchema, rowErrorsPageSchema } from '../../imports/responses.ts';
import { submitImportJobContract } from '../../imports/submit-import-job.ts';
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
