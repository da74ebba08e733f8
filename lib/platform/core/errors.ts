/**
 * Typed errors with a stable problem `code`. The problem-document middleware is the only place
 * that turns them into HTTP responses; domain code throws these and knows nothing about HTTP
 * beyond the status each condition maps to.
 */

export type ProblemLocation = 'query' | 'path' | 'header' | 'body' | 'form';

export interface FieldError {
  location: ProblemLocation;
  /** Parameter name (query, path, header, form). */
  name?: string;
  /** JSON Pointer into the body (body). */
  pointer?: string;
  code: string;
  message: string;
}

export interface ApiErrorOptions {
  detail?: string;
  /** Extra members of the problem document (e.g. `requiredScope`). */
  extensions?: Record<string, unknown>;
  headers?: Record<string, string>;
  cause?: unknown;
}

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly title: string;
  readonly detail: string | undefined;
  readonly extensions: Record<string, unknown>;
  readonly headers: Record<string, string>;

  constructor(status: number, code: string, title: string, options: ApiErrorOptions = {}) {
    super(options.detail ?? title, { cause: options.cause });
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.title = title;
    this.detail = options.detail;
    this.extensions = options.extensions ?? {};
    this.headers = options.headers ?? {};
  }
}

export class ValidationError extends ApiError {
  readonly errors: FieldError[];

  constructor(errors: FieldError[], detail = 'The request has invalid values; see `errors`.') {
    super(400, 'customer-api.validation.failed', 'Validation failed', { detail, extensions: { errors } });
    this.errors = errors;
  }
}

/**
 * A write refused because another record of the organization holds a unique key (a code, a sku):
 * the same request always meets it again, so when the commit met it, it is the request's stored
 * outcome (docs/api-guide.md "Idempotency").
 */
export class UniqueKeyTakenError extends ApiError {}

export class NotFoundError extends ApiError {
  constructor(area: string, detail = 'The resource does not exist.') {
    super(404, `customer-api.${area}.not-found`, 'Not found', { detail });
  }
}

export class UnauthenticatedError extends ApiError {
  constructor() {
    // One detail for every cause, so a caller learns nothing about why a key was refused.
    super(401, 'customer-api.auth.unauthenticated', 'Unauthenticated', {
      detail: 'A valid API key is required in the Authorization header as `Bearer <key>`.',
      headers: { 'WWW-Authenticate': 'Bearer realm="customer-api"' },
    });
  }
}

export class InsufficientScopeError extends ApiError {
  constructor(requiredScope: string) {
    super(403, 'customer-api.auth.insufficient-scope', 'Insufficient scope', {
      detail: `This operation requires the scope '${requiredScope}'.`,
      extensions: { requiredScope },
      headers: { 'WWW-Authenticate': `Bearer realm="customer-api", error="insufficient_scope", scope="${requiredScope}"` },
    });
  }
}
