import { afterEach, describe, expect, it, vi } from 'vitest';
import { renderBarcodeContract } from '../../../lib/labels/contracts.ts';
import { bindOperation } from '../../../lib/platform/contracts/operation.ts';
import { generateApiKey } from '../../../lib/platform/auth/api-key.ts';
import type { ApiKeyLookup } from '../../../lib/platform/auth/ports.ts';
import { AuthFailureLimiter, type AuthFailureCounter, type CounterWindow } from '../../../lib/platform/rate-limit/auth-failures.ts';
import type { RateLimitPolicies } from '../../../lib/platform/rate-limit/fixed-window.ts';
import { TokenLeases } from '../../../lib/platform/rate-limit/token-leases.ts';
import { createOperationHandler, type ChainDependencies } from '../../../lib/platform/http/chain.ts';
import { routeById } from '../../../lib/app/routes.ts';
import { apiGatewayEvent, invocationContext } from '../../../local/api-gateway-events.ts';
import { InMemoryCounter } from './in-memory-counter.ts';
import { keyRecord } from './key-record.ts';

/**
 * The per-source limit on failed authentications (docs/api-guide.md "Failed authentications"),
 * with an in-memory counter: the limiter alone, then inside the real chain.
 */

/** 2026-01-31T12:00:00Z, a window boundary. */
const BOUNDARY_MS = Date.UTC(2026, 0, 31, 12, 0, 0);

/** Test double of the rate-limits table's failed-authentication counters; records each update. */
class InMemoryAuthFailureCounter implements AuthFailureCounter {
  readonly counts = new Map<string, number>();
  readonly calls: Array<{ source: string } & CounterWindow> = [];
  failWith: Error | undefined;

  async countAuthFailure(source: string, window: CounterWindow): Promise<number> {
    this.calls.push({ source, ...window });
    if (this.failWith) throw this.failWith;
    const id = `${source}#${window.windowStartEpochSeconds}`;
    const count = (this.counts.get(id) ?? 0) + 1;
    this.counts.set(id, count);
    return count;
  }
}

describe('AuthFailureLimiter', () => {
  it('counts failures per source in the fixed window, with a TTL after it, and is exceeded past the limit', async () => {
    // Prepare
    const counter = new InMemoryAuthFailureCounter();
    const limiter = new AuthFailureLimiter(counter, { limit: 3, windowSeconds: 60 });
    // Act
    const verdicts = [];
    for (let i = 0; i < 4; i += 1) verdicts.push(await limiter.recordFailure('192.0.2.1', BOUNDARY_MS + 15_000));
    // Assess
    expect(verdicts.map((verdict) => verdict.exceeded)).toEqual([false, false, false, true]);
    expect(verdicts[3]).toEqual({ exceeded: true, limit: 3, windowSeconds: 60, retryAfterSeconds: 45 });
    expect(counter.calls[0]).toEqual({
      source: '192.0.2.1',
      windowSeconds: 60,
      windowStartEpochSeconds: BOUNDARY_MS / 1000,
      expiresAtEpochSeconds: BOUNDARY_MS / 1000 + 120,
    });
  });

  it('stops updating the counter for a source it knows to be over the limit, until its window ends', async () => {
    // Prepare
    const counter = new InMemoryAuthFailureCounter();
    const limiter = new AuthFailureLimiter(counter, { limit: 2, windowSeconds: 60 });
    for (let i = 0; i < 3; i += 1) await limiter.recordFailure('192.0.2.1', BOUNDARY_MS + 1000);
    // Act
    const during = [];
    for (let i = 0; i < 50; i += 1) during.push(await limiter.recordFailure('192.0.2.1', BOUNDARY_MS + 59_000));
    const callsDuring = counter.calls.length;
    const next = await limiter.recordFailure('192.0.2.1', BOUNDARY_MS + 60_000);
    // Assess
    expect(during.every((verdict) => verdict.exceeded)).toBe(true);
    expect(during[0]?.retryAfterSeconds).toBe(1);
    expect(callsDuring).toBe(3);
    expect(next.exceeded).toBe(false);
    expect(counter.calls).toHaveLength(4);
  });

  it('counts each source on its own', async () => {
    // Prepare
    const limiter = new AuthFailureLimiter(new InMemoryAuthFailureCounter(), { limit: 1, windowSeconds: 60 });
    await limiter.recordFailure('192.0.2.1', BOUNDARY_MS);
    await limiter.recordFailure('192.0.2.1', BOUNDARY_MS);
    // Act
    const other = await limiter.recordFailure('2001:db8::1', BOUNDARY_MS);
    // Assess
    expect(limiter.isOverLimit('192.0.2.1', BOUNDARY_MS)).toBe(true);
    expect(other.exceeded).toBe(false);
  });

  it('remembers a bounded number of sources, forgetting the oldest (which then counts again)', async () => {
    // Prepare
    const counter = new InMemoryAuthFailureCounter();
    const limiter = new AuthFailureLimiter(counter, { limit: 1, windowSeconds: 60 }, 2);
    for (const source of ['a', 'b', 'c']) {
      await limiter.recordFailure(source, BOUNDARY_MS);
      await limiter.recordFailure(source, BOUNDARY_MS);
    }
    // Act + Assess
    expect(['a', 'b', 'c'].map((source) => limiter.isOverLimit(source, BOUNDARY_MS))).toEqual([false, true, true]);
    expect((await limiter.recordFailure('a', BOUNDARY_MS)).exceeded).toBe(true);
  });
});

const POLICIES: RateLimitPolicies = {
  general: { name: 'general', limit: 100, windowSeconds: 60 },
  submission: { name: 'submission', limit: 100, windowSeconds: 60 },
};

const VALID_KEY = generateApiKey('test');
const OTHER_SCOPE_KEY = generateApiKey('test');
const REVOKED_KEY = generateApiKey('test');

const record = keyRecord;

const RECORDS = [record(VALID_KEY, ['labels:read']), record(OTHER_SCOPE_KEY, ['boms:read']), record(REVOKED_KEY, ['labels:read'], '2026-01-02T00:00:00Z')];

function setup(limit = 3) {
  const lookups: string[] = [];
  const keys: ApiKeyLookup = {
    findByHash: async (keyHash) => {
      lookups.push(keyHash);
      return RECORDS.find((candidate) => candidate.keyHash === keyHash);
    },
  };
  const failures = new InMemoryAuthFailureCounter();
  const rateLimits = new InMemoryCounter();
  const dependencies: ChainDependencies = {
    apiKeys: keys,
    rateLimits: new TokenLeases(rateLimits),
    rateLimitPolicies: POLICIES,
    authFailures: new AuthFailureLimiter(failures, { limit, windowSeconds: 60 }),
  };
  const route = routeById('renderBarcode');
  const handler = createOperationHandler(bindOperation(route, renderBarcodeContract), dependencies, async () => ({ status: 200, json: { ok: true } }));
  const invoke = async (key: string | undefined, sourceIp = '198.51.100.7', headers: Record<string, string> = {}) => {
    const event = apiGatewayEvent(route, { key, query: 'payload=x', headers });
    event.requestContext.http.sourceIp = sourceIp;
    const response = await handler(event, invocationContext(event));
    return { status: response.statusCode, headers: response.headers, problem: JSON.parse(String(response.body)) as Record<string, unknown> };
  };
  return { invoke, failures, rateLimits, lookups };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('failed authentications in the chain', () => {
  it('answers 401 up to the limit, then 429 rate-limit.exceeded with Retry-After and traceId', async () => {
    // Prepare
    const { invoke } = setup(3);
    const forged = () => generateApiKey('test');
    // Act
    const statuses = [];
    for (let i = 0; i < 3; i += 1) statuses.push((await invoke(forged())).status);
    const refused = await invoke(forged());
    // Assess
    expect(statuses).toEqual([401, 401, 401]);
    expect(refused.status).toBe(429);
    expect(refused.headers['Content-Type']).toBe('application/problem+json');
    expect(Number(refused.headers['Retry-After'])).toBeGreaterThanOrEqual(1);
    expect(refused.headers['RateLimit-Policy']).toBe('"general";q=100;w=60');
    expect(refused.problem).toMatchObject({ status: 429, code: 'customer-api.rate-limit.exceeded', traceId: refused.headers['X-Trace-Id'] });
    expect(String(refused.problem.detail)).toContain('more than 3');
  });

  it('counts unknown and revoked keys (401), not a key without the scope (403)', async () => {
    // Prepare
    const { invoke, failures } = setup(3);
    // Act
    const statuses = [(await invoke(generateApiKey('test'))).status, (await invoke(REVOKED_KEY)).status, (await invoke(OTHER_SCOPE_KEY)).status];
    // Assess
    expect(statuses).toEqual([401, 401, 403]);
    expect(failures.calls.map((call) => call.source)).toEqual(['198.51.100.7', '198.51.100.7']);
  });

  it('neither counts nor looks up missing and malformed keys, which stay 401 even over the limit', async () => {
    // Prepare
    const { invoke, failures, lookups } = setup(1);
    await invoke(generateApiKey('test'));
    expect((await invoke(generateApiKey('test'))).status).toBe(429);
    // Act
    const statuses = [(await invoke(undefined)).status, (await invoke('not-a-key')).status, (await invoke(`${VALID_KEY.slice(0, -1)}!`)).status];
    // Assess
    expect(statuses).toEqual([401, 401, 401]);
    expect(failures.calls).toHaveLength(2);
    expect(lookups).toHaveLength(2);
  });

  it('still lets a valid key from a source over the limit through (a NAT), counted against its own key only', async () => {
    // Prepare
    const { invoke, rateLimits, failures } = setup(2);
    for (let i = 0; i < 5; i += 1) await invoke(generateApiKey('test'));
    // Act
    const valid = await invoke(VALID_KEY);
    const forged = await invoke(generateApiKey('test'));
    // Assess
    expect(valid.status).toBe(200);
    expect(valid.headers.RateLimit).toMatch(/^"general";r=99;t=\d+$/);
    expect(rateLimits.calls).toHaveLength(1);
    expect(forged.status).toBe(429);
    // The 3rd failure went over the limit; the container remembers it and counts no more.
    expect(failures.calls).toHaveLength(3);
  });

  it('keeps other sources at 401', async () => {
    // Prepare
    const { invoke } = setup(1);
    for (let i = 0; i < 3; i += 1) await invoke(generateApiKey('test'), '198.51.100.7');
    // Act
    const other = await invoke(generateApiKey('test'), '203.0.113.9');
    // Assess
    expect(other.status).toBe(401);
  });

  it('adds no storage request to an accepted key: one counter update, no failure count', async () => {
    // Prepare
    const { invoke, rateLimits, failures, lookups } = setup();
    // Act
    const response = await invoke(VALID_KEY);
    // Assess
    expect(response.status).toBe(200);
    expect(lookups).toHaveLength(1);
    expect(rateLimits.calls).toHaveLength(1);
    expect(failures.calls).toHaveLength(0);
  });

  it('still answers 401 (not a 5xx) when the failure counter cannot be updated', async () => {
    // Prepare
    vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    const { invoke, failures } = setup();
    failures.failWith = Object.assign(new Error('throttled'), { name: 'ThrottlingException' });
    // Act
    const response = await invoke(generateApiKey('test'));
    // Assess
    expect(response.status).toBe(401);
    expect(response.problem).toMatchObject({ code: 'customer-api.auth.unauthenticated' });
  });
});
