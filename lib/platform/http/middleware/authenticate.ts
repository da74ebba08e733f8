import { hashApiKey, isKeyUsable, isWellFormedApiKey } from '../../auth/api-key.ts';
import type { ApiKeyLookup } from '../../auth/ports.ts';
import type { Scope } from '../../auth/scopes.ts';
import { ApiError, InsufficientScopeError, UnauthenticatedError } from '../../core/errors.ts';
import type { AuthFailureLimiter } from '../../rate-limit/auth-failures.ts';
import { describeError, log } from '../../observability/log.ts';
import { header } from '../headers.ts';
import { stateOf, type HttpEvent, type HttpMiddleware, type MiddyRequest } from '../types.ts';

const BEARER = /^Bearer +(\S+) *$/i;

export interface AuthenticateOptions {
  /** The per-source limit on failed authentications (docs/api-guide.md "Failed authentications"); none without it. */
  failures?: AuthFailureLimiter;
  now?: () => Date;
}

/**
 * Bearer API key + scope check. Runs before validation so an unauthenticated caller learns
 * nothing about input rules. Every refusal is the same 401 whatever the cause; a malformed or
 * bad-checksum key is refused before any storage read.
 *
 * A well-formed key the keys table does not accept (unknown, revoked, expired) also counts against
 * its source address's failed-authentication limit, and is answered 429 once the source is over it.
 * The key is always checked first, so a valid key is never refused for others' failures from the
 * same address (a NAT); a malformed or missing key costs no storage read, is not counted and
 * stays a 401. A 403 (a real key without the scope) is not a failed authentication.
 */
export function authenticate(requiredScope: Scope, keys: ApiKeyLookup, options: AuthenticateOptions = {}): HttpMiddleware {
  const { failures, now = () => new Date() } = options;
  return {
    before: async (request: MiddyRequest) => {
      const match = BEARER.exec(header(request.event, 'authorization') ?? '');
      const key = match?.[1];
      if (!key || !isWellFormedApiKey(key)) throw new UnauthenticatedError();
      const record = await keys.findByHash(hashApiKey(key));
      const at = now();
      if (!record || !isKeyUsable(record, at)) throw failures ? await failedAuthentication(failures, request, at) : new UnauthenticatedError();
      if (!record.scopes.includes(requiredScope)) throw new InsufficientScopeError(requiredScope);
      stateOf(request).principal = { keyId: record.keyId, organizationId: record.organizationId, scopes: record.scopes };
    },
  };
}

function sourceOf(event: HttpEvent): string | undefined {
  const source = event.requestContext?.http?.sourceIp;
  return typeof source === 'string' && source !== '' ? source : undefined;
}

/** The refusal of a well-formed key that failed: 401, or 429 once its source is over the limit. */
async function failedAuthentication(failures: AuthFailureLimiter, request: MiddyRequest, at: Date): Promise<ApiError> {
  const source = sourceOf(request.event);
  if (!source) return new UnauthenticatedError();
  let verdict;
  try {
    verdict = await failures.recordFailure(source, at.getTime());
  } catch (error) {
    // The request is refused either way: a counter that cannot be updated must not turn a 401 into a 5xx.
    log('warn', 'failed authentication not counted', { traceId: request.context.requestState?.traceId, ...describeError(error), stack: undefined });
    return new UnauthenticatedError();
  }
  if (!verdict.exceeded) return new UnauthenticatedError();
  return new ApiError(429, 'customer-api.rate-limit.exceeded', 'Too many requests', {
    detail: `This address has made more than ${verdict.limit} requests with a key that was not accepted in the current ${verdict.windowSeconds}-second window; retry after ${verdict.retryAfterSeconds} s with a valid key.`,
    headers: { 'Retry-After': String(verdict.retryAfterSeconds) },
  });
}
