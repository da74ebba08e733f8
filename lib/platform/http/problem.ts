import { ApiError } from '../core/errors.ts';
import { baseHeaders, type HeaderState } from './headers.ts';
import type { HttpResponse } from './types.ts';

/**
 * Problem documents (RFC 9457) with the stable `code` and `traceId`. `type` is a URN derived
 * from the code, so it is stable and needs no hosted page; `instance` is the request path.
 */

export const PROBLEM_MEDIA_TYPE = 'application/problem+json';

export function problemTypeFor(code: string): string {
  return `urn:problem-type:${code}`;
}

export function internalError(): ApiError {
  return new ApiError(500, 'customer-api.internal', 'Internal error', {
    detail: 'The request could not be completed because of an internal error. Quote the traceId when reporting it.',
  });
}

/** Errors thrown by libraries (e.g. Middy parsers) that carry an HTTP status for bad input. */
interface StatusError {
  statusCode?: unknown;
  status?: unknown;
  expose?: unknown;
  message?: unknown;
}

const STATUS_CODES: Record<number, [string, string]> = {
  400: ['customer-api.validation.failed', 'Validation failed'],
  413: ['customer-api.request.too-large', 'Request too large'],
  415: ['customer-api.request.unsupported-media-type', 'Unsupported media type'],
  422: ['customer-api.validation.failed', 'Validation failed'],
};

const THROTTLING_ERRORS = new Set(['ThrottlingException', 'ProvisionedThroughputExceededException', 'RequestLimitExceeded', 'TooManyRequestsException']);

/** An AWS SDK error that says the service throttled the request (logged as such; still a 500). */
export function isThrottling(error: unknown): boolean {
  const candidate = (error ?? {}) as { name?: unknown; $retryable?: { throttling?: unknown } };
  return candidate.$retryable?.throttling === true || (typeof candidate.name === 'string' && THROTTLING_ERRORS.has(candidate.name));
}

/** Turns anything thrown into an ApiError; unknown errors become a generic 500. */
export function toApiError(error: unknown): ApiError {
  if (error instanceof ApiError) return error;
  const candidate = (error ?? {}) as StatusError;
  const status = Number(candidate.statusCode ?? candidate.status);
  const known = STATUS_CODES[status];
  if (known && candidate.expose !== false) {
    const [code, title] = known;
    const detail = typeof candidate.message === 'string' ? candidate.message : title;
    return new ApiError(status === 422 ? 400 : status, code, title, { detail });
  }
  return internalError();
}

export function problemResponse(error: ApiError, state: HeaderState, instance: string): HttpResponse {
  const { traceId } = state;
  const body = {
    type: problemTypeFor(error.code),
    title: error.title,
    status: error.status,
    // Only < 500 shows the real detail; a 500 says nothing about internals.
    detail: error.status < 500 ? (error.detail ?? error.title) : internalError().detail,
    instance,
    code: error.code,
    traceId,
    ...(error.status < 500 ? error.extensions : {}),
  };
  return {
    statusCode: error.status,
    headers: { ...baseHeaders(state), ...error.headers, 'Content-Type': PROBLEM_MEDIA_TYPE },
    body: JSON.stringify(body),
  };
}
