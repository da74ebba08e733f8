import type { EXPORT_ROUTES } from '../../../exports/routes.ts';
import { getExportContract } from '../../../exports/contracts/get-export.ts';
import { getExportDownloadUrlContract } from '../../../exports/contracts/get-export-download-url.ts';
import { listExportKindsContract } from '../../../exports/contracts/list-export-kinds.ts';
import { exportDownloadUrlSchema, exportJobSchema, exportKindsPageSchema } from '../../../exports/contracts/responses.ts';
import { submitExportContract } from '../../../exports/contracts/submit-export.ts';
import type { OpenApiArea } from './types.ts';

/** The Exports area in the OpenAPI document. */
export const exportsOpenApi = {
  tag: {
    name: 'Exports',
    description:
      'Export a kind of record to a CSV or JSON Lines file in the background, exact as of an event of the feed (`asOfEventId`), and download it through a short-lived link.',
  },
  operations: {
    listExportKinds: { contract: listExportKindsContract, response: exportKindsPageSchema },
    submitExport: { contract: submitExportContract, response: exportJobSchema },
    getExport: { contract: getExportContract, response: exportJobSchema },
    getExportDownloadUrl: { contract: getExportDownloadUrlContract, response: exportDownloadUrlSchema },
  },
  problemCodes: {
    getExportDownloadUrl: { 409: ['customer-api.exports.not-ready'] },
  },
} satisfies OpenApiArea<typeof EXPORT_ROUTES>;
