import { ApiProblemError } from './api-problem-error.ts';

export const CURSOR_EXPIRED_CODE = 'customer-api.events.cursor-expired';

/**
 * The feed's checkpoint points past the 30-day retention horizon: events may have been missed.
 * Recovery: clear the checkpoint, resynchronise from the resource endpoints, then read the feed
 * again from its oldest retained event (docs/client.md#cursor-expired).
 */
export class CursorExpiredError extends ApiProblemError {
  override name = 'CursorExpiredError';
  /** The stored cursor the feed refused. */
  readonly cursor: string | undefined;

  constructor(problem: ApiProblemError, cursor: string | undefined) {
    super({
      status: problem.status,
      code: problem.code,
      title: problem.title,
      detail: problem.detail,
      traceId: problem.traceId,
      errors: problem.errors,
      problem: problem.problem,
    });
    this.cursor = cursor;
  }
}
