import type { ProblemDetails } from '../types.ts';

/** Codes the client itself uses for answers that carry no problem document (e.g. a proxy's HTML). */
export const UNEXPECTED_RESPONSE_CODE = 'client.unexpected-response';

export type ProblemFieldError = NonNullable<ProblemDetails['errors']>[number];

/**
 * An API answer that is not a success, as a typed error (docs/client.md#typed-errors): branch on
 * `code`, quote `traceId` to support. `problem` is the body as received.
 */
export class ApiProblemError extends Error {
  override name = 'ApiProblemError';
  readonly status: number;
  readonly code: string;
  readonly title: string;
  readonly detail: string | undefined;
  readonly traceId: string | undefined;
  /** Validation problems, one per invalid value (empty for other problems). */
  readonly errors: readonly ProblemFieldError[];
  /** The raw problem document, or the body text when the answer was not one. */
  readonly problem: ProblemDetails | string | undefined;

  constructor(init: {
    status: number;
    code: string;
    title: string;
    detail?: string;
    traceId?: string;
    errors?: readonly ProblemFieldError[];
    problem: ProblemDetails | string | undefined;
  }) {
    const trace = init.traceId ? ` (traceId ${init.traceId})` : '';
    super(`${init.status} ${init.code}: ${init.detail ?? init.title}${trace}`);
    this.status = init.status;
    this.code = init.code;
    this.title = init.title;
    this.detail = init.detail;
    this.traceId = init.traceId;
    this.errors = init.errors ?? [];
    this.problem = init.problem;
  }

  /** The error for a non-2xx answer whose body openapi-fetch has already read (parsed JSON or text). */
  static fromResponse(response: Response, body: unknown): ApiProblemError {
    const headerTraceId = response.headers.get('x-trace-id') ?? undefined;
    if (isProblem(body)) {
      return new ApiProblemError({
        status: body.status,
        code: body.code,
        title: body.title,
        detail: body.detail,
        traceId: body.traceId ?? headerTraceId,
        errors: body.errors,
        problem: body,
      });
    }
    const text = typeof body === 'string' ? body : body === undefined ? undefined : JSON.stringify(body);
    return new ApiProblemError({
      status: response.status,
      code: UNEXPECTED_RESPONSE_CODE,
      title: response.statusText || `HTTP ${response.status}`,
      detail: text ? text.slice(0, 500) : undefined,
      traceId: headerTraceId,
      problem: text,
    });
  }
}

function isProblem(body: unknown): body is ProblemDetails {
  if (typeof body !== 'object' || body === null) return false;
  const candidate = body as Partial<Record<keyof ProblemDetails, unknown>>;
  return typeof candidate.code === 'string' && typeof candidate.status === 'number' && typeof candidate.title === 'string';
}
