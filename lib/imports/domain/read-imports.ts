import { ApiError, NotFoundError } from '../../platform/core/errors.ts';
import type { CursorCodec } from '../../platform/pagination/cursor.ts';
import { cursorPage } from '../../platform/pagination/page.ts';
import { isFinished, isJobExpired, publicJob, type ImportJob, type ImportJobState } from './job.ts';
import type { RowError } from './types.ts';

/**
 * Reads of the imports area: one job, a job's row errors. The kinds list is in list-kinds.ts, so
 * that these reads do not carry every kind's parser.
 */

export interface ImportJobReader {
  get(organizationId: string, jobId: string): Promise<ImportJobState | undefined>;
  listRowErrors(organizationId: string, jobId: string, after: string | undefined, limit: number): Promise<{ errors: RowError[]; last?: string; more: boolean }>;
}

export interface Page<T> {
  data: T[];
  page: { nextCursor: string | null };
}

export class ImportReads {
  /** `cursors` is needed only to page row errors. */
  constructor(
    private readonly jobs: ImportJobReader,
    private readonly cursors?: CursorCodec,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async getJob(organizationId: string, jobId: string): Promise<ImportJob> {
    return publicJob(await this.requireJob(organizationId, jobId));
  }

  /** A page of the stored row errors, with how many errors of the job were counted but not stored (docs/imports.md "Row errors"). */
  async listRowErrors(organizationId: string, jobId: string, query: { limit: number; cursor?: string }): Promise<Page<RowError> & { notStoredCount: number }> {
    const job = await this.requireJob(organizationId, jobId);
    if (!isFinished(job.status)) {
      throw new ApiError(409, 'customer-api.imports.job-not-finished', 'Job not finished', {
        detail: `The job is ${job.status}; row errors are available once it has finished. Poll the job first.`,
      });
    }
    const { cursors } = this;
    if (!cursors) throw new Error('Paging row errors needs a cursor codec');
    const binding = { organizationId, endpoint: `GET /v1/imports/jobs/${jobId}/errors`, filters: {} };
    const page = await cursorPage(cursors, binding, query.cursor, async (after) => {
      const read = await this.jobs.listRowErrors(organizationId, jobId, after, query.limit);
      return { items: read.errors, last: read.last, more: read.more };
    });
    return { ...page, notStoredCount: job.unstoredErrors ?? 0 };
  }

  private async requireJob(organizationId: string, jobId: string): Promise<ImportJobState> {
    const job = await this.jobs.get(organizationId, jobId);
    if (!job || isJobExpired(job, this.now())) throw new NotFoundError('imports', 'No import job with this id.');
    return job;
  }
}
