import { ApiError } from '../../core/errors.ts';
import { counterExpiresAt, evaluateWindow, exceededWindow, windowStartOf, type RateLimitPolicies } from '../../rate-limit/fixed-window.ts';
import type { TokenLeases } from '../../rate-limit/token-leases.ts';
import type { RouteDefinition } from '../../contracts/route-types.ts';
import { stateOf, type HttpMiddleware, type MiddyRequest } from '../types.ts';

/**
 * Per-API-key fixed-window rate limits (docs/api-guide.md "Rate limits"). Runs right after auth (it needs the key
 * id) and before validation, so an invalid request costs budget like any other and a 429 is
 * decided before an idempotency key is claimed. Every route takes a token of the general limit;
 * submission routes also one of the submission limit. Tokens come from this container's leases
 * (lib/platform/rate-limit/token-leases.ts): a general token is mostly taken locally, and a lease,
 * when one is due, is one round trip for all the policies of one window length. The windows are
 * put on the request state before anything is decided, so every later response — success,
 * problem or the 429 itself — carries RateLimit-Policy / RateLimit.
 * Requests refused by auth (401/403) identify no usable key and count against no key (a failed
 * key counts against its source address instead: docs/api-guide.md "Failed authentications").
 */
export function rateLimit(
  route: Pick<RouteDefinition, 'submission'>,
  leases: TokenLeases,
  config: RateLimitPolicies,
  now: () => Date = () => new Date(),
): HttpMiddleware {
  const policies = route.submission ? [config.general, config.submission] : [config.general];
  const windowLengths = [...new Set(policies.map((policy) => policy.windowSeconds))];
  const policiesOf = (windowSeconds: number) => policies.filter((policy) => policy.windowSeconds === windowSeconds);
  return {
    before: async (request: MiddyRequest) => {
      const state = stateOf(request);
      const keyId = state.principal?.keyId;
      if (!keyId) throw new Error('Chain misordered: rate limit ran before auth');
      const nowMs = now().getTime();
      const outcomes = await Promise.all(
        windowLengths.map((windowSeconds) => {
          const windowStartEpochSeconds = windowStartOf(nowMs, windowSeconds);
          const window = { windowSeconds, windowStartEpochSeconds, expiresAtEpochSeconds: counterExpiresAt(windowStartEpochSeconds, windowSeconds) };
          return leases.acquire(keyId, window, policiesOf(windowSeconds), nowMs);
        }),
      );
      const evaluations = policies.map((policy) => {
        const outcome = outcomes[windowLengths.indexOf(policy.windowSeconds)]?.[policiesOf(policy.windowSeconds).indexOf(policy)];
        if (!outcome) throw new Error(`The token leases returned no outcome for ${policy.name}`);
        return evaluateWindow(policy, outcome.position, nowMs);
      });
      state.rateLimit = evaluations.map((evaluation) => evaluation.status);
      const blocking = exceededWindow(evaluations);
      if (blocking) {
        throw new ApiError(429, 'customer-api.rate-limit.exceeded', 'Too many requests', {
          detail: `This API key has used its ${blocking.limit} ${blocking.policy} requests of the current ${blocking.windowSeconds}-second window; retry after ${blocking.resetSeconds} s.`,
          headers: { 'Retry-After': String(blocking.resetSeconds) },
        });
      }
    },
  };
}

/**
 * Puts the route's policies on the request state before auth, so even a 401/403 (no key to
 * count against) announces `RateLimit-Policy`.
 */
export function announceRateLimitPolicy(route: Pick<RouteDefinition, 'submission'>, config: RateLimitPolicies): HttpMiddleware {
  const policies = (route.submission ? [config.general, config.submission] : [config.general]).map((policy) => ({
    policy: policy.name,
    limit: policy.limit,
    windowSeconds: policy.windowSeconds,
  }));
  return {
    before: async (request: MiddyRequest) => {
      stateOf(request).rateLimitPolicy = policies;
    },
  };
}
