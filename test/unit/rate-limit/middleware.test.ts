import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../lib/platform/core/errors.ts';
import type { RateLimitPolicies } from '../../../lib/platform/rate-limit/fixed-window.ts';
import { TokenLeases } from '../../../lib/platform/rate-limit/token-leases.ts';
import { rateLimit } from '../../../lib/platform/http/middleware/rate-limit.ts';
import type { MiddyRequest, RequestState } from '../../../lib/platform/http/types.ts';
import { InMemoryCounter } from './in-memory-counter.ts';

/** 2026-01-31T12:00:00Z, a window boundary. */
const BOUNDARY_MS = Date.UTC(2026, 0, 31, 12, 0, 0);
const BOUNDARY_S = BOUNDARY_MS / 1000;

const POLICIES: RateLimitPolicies = {
  general: { name: 'general', limit: 5, windowSeconds: 60 },
  submission: { name: 'submission', limit: 2, windowSeconds: 60 },
};

const NORMAL = { submission: false };
const SUBMISSION = { submission: true };

function authenticatedRequest(keyId = 'key_a'): MiddyRequest & { context: { requestState: RequestState } } {
  const requestState: RequestState = { traceId: 'trace-1', principal: { keyId, organizationId: 'org_1', scopes: ['labels:read'] } };
  return { event: {}, context: { requestState }, response: undefined, error: undefined, internal: {} } as unknown as MiddyRequest & {
    context: { requestState: RequestState };
  };
}

/** The counter and this container's leases of it (shared by every request of a test, as in a container). */
function container() {
  const counter = new InMemoryCounter();
  return { counter, leases: new TokenLeases(counter) };
}

async function run(route: { submission: boolean }, leases: TokenLeases, nowMs: number, keyId?: string) {
  const request = authenticatedRequest(keyId);
  const middleware = rateLimit(route, leases, POLICIES, () => new Date(nowMs));
  const error = await Promise.resolve(middleware.before?.(request)).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  return { state: request.context.requestState, error };
}

describe('rateLimit middleware', () => {
  it('counts a normal route against the general window only, with a TTL after the window', async () => {
    // Prepare
    const { counter, leases } = container();
    // Act
    const { state, error } = await run(NORMAL, leases, BOUNDARY_MS + 20_000);
    // Assess
    expect(error).toBeUndefined();
    expect(counter.calls).toEqual([
      { keyId: 'key_a', adds: [{ policy: 'general', tokens: 1 }], windowStart: BOUNDARY_S, expiresAt: BOUNDARY_S + 120, applied: true },
    ]);
    expect(state.rateLimit).toEqual([{ policy: 'general', limit: 5, windowSeconds: 60, remaining: 4, resetSeconds: 40 }]);
  });

  it('counts a submission route against both windows, in one counter update', async () => {
    // Prepare
    const { counter, leases } = container();
    // Act
    const { state, error } = await run(SUBMISSION, leases, BOUNDARY_MS);
    // Assess
    expect(error).toBeUndefined();
    expect(counter.calls.map((call) => call.adds.map((add) => add.policy))).toEqual([['general', 'submission']]);
    expect(state.rateLimit).toEqual([
      { policy: 'general', limit: 5, windowSeconds: 60, remaining: 4, resetSeconds: 60 },
      { policy: 'submission', limit: 2, windowSeconds: 60, remaining: 1, resetSeconds: 60 },
    ]);
  });

  it('lets the request that reaches the limit exactly through, with 0 remaining', async () => {
    // Prepare
    const { counter, leases } = container();
    counter.preload('key_a', 'general', BOUNDARY_S, 4);
    // Act
    const { state, error } = await run(NORMAL, leases, BOUNDARY_MS + 1000);
    // Assess
    expect(error).toBeUndefined();
    expect(state.rateLimit?.[0]?.remaining).toBe(0);
  });

  it.each([
    ['mid-window', 30_500, '30'],
    ['exactly on the boundary', 0, '60'],
    ['1 ms before the next boundary', 59_999, '1'],
  ])('answers 429 with Retry-After %s over the general limit', async (_label, offsetMs, retryAfter) => {
    // Prepare
    const { counter, leases } = container();
    counter.preload('key_a', 'general', BOUNDARY_S, 5);
    // Act
    const { state, error } = await run(NORMAL, leases, BOUNDARY_MS + offsetMs);
    // Assess
    expect(error).toBeInstanceOf(ApiError);
    const apiError = error as ApiError;
    expect(apiError.status).toBe(429);
    expect(apiError.code).toBe('customer-api.rate-limit.exceeded');
    expect(apiError.headers).toEqual({ 'Retry-After': retryAfter });
    expect(apiError.detail).toContain('general');
    // The state is set before the 429, so the problem document carries the headers too.
    expect(state.rateLimit).toEqual([{ policy: 'general', limit: 5, windowSeconds: 60, remaining: 0, resetSeconds: Number(retryAfter) }]);
  });

  it('answers 429 for the 3rd submission while the general window still has budget', async () => {
    // Prepare
    const { leases } = container();
    await run(SUBMISSION, leases, BOUNDARY_MS);
    await run(SUBMISSION, leases, BOUNDARY_MS + 1000);
    // Act
    const { state, error } = await run(SUBMISSION, leases, BOUNDARY_MS + 2000);
    // Assess
    expect((error as ApiError).status).toBe(429);
    expect((error as ApiError).detail).toContain('submission');
    expect((error as ApiError).headers['Retry-After']).toBe('58');
    expect(state.rateLimit?.map((window) => [window.policy, window.remaining])).toEqual([
      ['general', 2],
      ['submission', 0],
    ]);
  });

  it('counts policies of different window lengths in one update per length', async () => {
    // Prepare
    const { counter, leases } = container();
    const hourly: RateLimitPolicies = { ...POLICIES, submission: { name: 'submission', limit: 2, windowSeconds: 3600 } };
    const request = authenticatedRequest();
    // Act
    await rateLimit(SUBMISSION, leases, hourly, () => new Date(BOUNDARY_MS + 20_000)).before?.(request);
    // Assess
    expect(counter.calls).toEqual([
      { keyId: 'key_a', adds: [{ policy: 'general', tokens: 1 }], windowStart: BOUNDARY_S, expiresAt: BOUNDARY_S + 120, applied: true },
      { keyId: 'key_a', adds: [{ policy: 'submission', tokens: 1 }], windowStart: BOUNDARY_S, expiresAt: BOUNDARY_S + 3660, applied: true },
    ]);
    expect(request.context.requestState.rateLimit?.map((window) => [window.policy, window.remaining, window.resetSeconds])).toEqual([
      ['general', 4, 40],
      ['submission', 1, 3580],
    ]);
  });

  it('starts over in the next window', async () => {
    // Prepare
    const { counter, leases } = container();
    counter.preload('key_a', 'general', BOUNDARY_S, 50);
    // Act
    const { state, error } = await run(NORMAL, leases, BOUNDARY_MS + 60_000);
    // Assess
    expect(error).toBeUndefined();
    expect(state.rateLimit?.[0]?.remaining).toBe(4);
  });

  it('partitions by API key', async () => {
    // Prepare
    const { counter, leases } = container();
    counter.preload('key_a', 'general', BOUNDARY_S, 50);
    // Act
    const { error } = await run(NORMAL, leases, BOUNDARY_MS, 'key_b');
    // Assess
    expect(error).toBeUndefined();
  });

  it('refuses to run before auth', async () => {
    // Prepare
    const request = authenticatedRequest();
    delete request.context.requestState.principal;
    const middleware = rateLimit(NORMAL, container().leases, POLICIES);
    // Act + Assess
    await expect(Promise.resolve(middleware.before?.(request))).rejects.toThrow(/before auth/);
  });
});
