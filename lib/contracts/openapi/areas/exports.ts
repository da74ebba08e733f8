import type { EXPORT_ROUTES } from '../../../routes/exports.ts';
import { getExportContract } from '../../exports/get-export.ts';
import { getExportDownloadUrlContract } from '../../exports/get-export-download-url.ts';
import { listExportKindsContract } from '../../exports/list-export-kinds.ts';
import { exportDownloadUrlSchema, exportJobSchema, exportKindsPageSchema } from '../../exports/responses.ts';
import { submitExportContract } from '../../exports/submit-export.ts';
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
