import { ApiError } from '../../platform/core/errors.ts';
import type { CursorCodec } from '../../platform/pagination/cursor.ts';
import type { ListPage } from '../../platform/pagination/page.ts';
import { staticListPage } from '../../platform/pagination/static-page.ts';
import {
  EXPORT_CONTENT_TYPES,
  EXPORT_DOWNLOAD_URL_TTL_SECONDS,
  exportFileName,
  isExportExpired,
  publicExport,
  type ExportJob,
  type ExportJobState,
} from './job.ts';
import { EXPORT_KINDS, type ExportColumn, type ExportFilter } from './kinds.ts';
import { exportNotFound } from './submit.ts';

/** Reading export jobs and minting download links (docs/exports.md). An expired job is gone: 404, as a foreign one. */

export interface ExportDownloadUrl {
  url: string;
  expiresAt: string;
  fileName: string;
  contentType: string;
  sizeBytes: number;
}

export interface ExportReadPorts {
  jobs: { get(organizationId: string, jobId: string): Promise<ExportJobState | undefined> };
  objects?: { downloadUrl(key: string, options: { fileName: string; contentType: string; expiresInSeconds: number }): Promise<string> };
  clock?: () => Date;
}

export interface ExportKindSummary {
  kind: string;
  title: string;
  description: string;
  columns: ExportColumn[];
  filters: ExportFilter[];
}

/** Every kind as `GET /v1/exports/kinds` lists it: the declaration's public part. */
const KIND_SUMMARIES: readonly ExportKindSummary[] = EXPORT_KINDS.map(({ kind, title, description, columns, filters }) => ({
  kind,
  title,
  description,
  columns: columns.map(({ name, type, description: text }) => ({ name, type, description: text })),
  filters: filters.map((filter: ExportFilter) => ({
    name: filter.name,
    type: filter.type,
    required: filter.required,
    description: filter.description,
    ...(filter.values === undefined ? {} : { values: [...filter.values] }),
  })),
}));

/** What `GET /v1/exports/kinds` answers: the kinds, paged like every list (the declaration is static, so by offset). */
export async function exportKindsList(
  organizationId: string,
  query: { limit: number; cursor?: string },
  cursors: CursorCodec,
): Promise<ListPage<ExportKindSummary>> {
  return staticListPage(KIND_SUMMARIES, { organizationId, endpoint: 'GET /v1/exports/kinds', ...query }, cursors);
}

export class ExportReads {
  constructor(private readonly ports: ExportReadPorts) {}

  private now(): Date {
    return this.ports.clock?.() ?? new Date();
  }

  private async live(organizationId: string, jobId: string): Promise<ExportJobState> {
    const job = jobId.startsWith('exp_') ? await this.ports.jobs.get(organizationId, jobId) : undefined;
    if (!job || isExportExpired(job, this.now())) throw exportNotFound();
    return job;
  }

  async get(organizationId: string, jobId: string): Promise<ExportJob> {
    return publicExport(await this.live(organizationId, jobId));
  }

  async downloadUrl(organizationId: string, jobId: string): Promise<ExportDownloadUrl> {
    const job = await this.live(organizationId, jobId);
    if (job.status !== 'succeeded') {
      throw new ApiError(409, 'customer-api.exports.not-ready', 'Export not ready', {
        detail: job.status === 'failed' ? 'The export failed; it has no file.' : `The export is ${job.status}; ask again once it has succeeded.`,
      });
    }
    const { objects } = this.ports;
    if (!objects) throw new Error('Download URLs need the object store');
    const issuedAt = this.now().getTime();
    const fileName = exportFileName(job);
    const contentType = EXPORT_CONTENT_TYPES[job.format];
    const url = await objects.downloadUrl(job.objectKey, { fileName, contentType, expiresInSeconds: EXPORT_DOWNLOAD_URL_TTL_SECONDS });
    return {
      url,
      expiresAt: new Date(issuedAt + EXPORT_DOWNLOAD_URL_TTL_SECONDS * 1000).toISOString(),
      fileName,
      contentType,
      sizeBytes: job.fileSizeBytes ?? 0,
    };
  }
}
