import type { InventoryClient } from '../create-client.ts';
import { paginate } from '../pagination/paginate.ts';
import type { ImportRowError } from '../types.ts';
import { unwrap } from '../unwrap.ts';

/**
 * The row errors of a finished job, in row order, read page by page as the caller iterates
 * (GET /v1/imports/jobs/{id}/errors; a job still running is a 409). Each iteration starts a new walk.
 */
export function rowErrorsOf(client: InventoryClient, jobId: string, options: { pageSize?: number; signal?: AbortSignal } = {}): AsyncIterable<ImportRowError> {
  const limit = options.pageSize ?? 200;
  return {
    [Symbol.asyncIterator]: () =>
      paginate((cursor) =>
        unwrap(client.api.GET('/v1/imports/jobs/{id}/errors', { params: { path: { id: jobId }, query: { limit, cursor } }, signal: options.signal })),
      ),
  };
}
