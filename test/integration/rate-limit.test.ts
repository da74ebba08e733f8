import { randomBytes } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { chainDependencies } from '../../lib/app/composition.ts';
import { counterExpiresAt } from '../../lib/platform/rate-limit/fixed-window.ts';
import { leaseTokens } from '../../lib/platform/rate-limit/token-leases.ts';
import { bindOperation } from '../../lib/platform/contracts/operation.ts';
import { createOperationHandler } from '../../lib/platform/http/chain.ts';
import type { RouteDefinition } from '../../lib/platform/contracts/route-types.ts';
import { documentClient } from '../../lib/platform/aws/clients.ts';
import { RateLimitStore, rateLimitCounterKey } from '../../lib/platform/dynamo/rate-limit-store.ts';
import { TABLES } from '../../lib/platform/storage/tables.ts';
import { createTestKey } from '../support/api.ts';
import { apiGatewayEvent, invocationContext } from '../../local/api-gateway-events.ts';
import { awaitWindowWithAtLeast, parseRateLimitField, secondsLeftInWindow } from '../support/rate-limit-window.ts';

/** The rate limit on DynamoDB Local: the counter store's conditional adds (token leases), and the chain with the real composition root. */

const tableName = () => process.env[TABLES['rate-limits'].envVar] ?? '';
const uniqueKeyId = () => `key_t${randomBytes(8).toString('hex')}`;
/** A window start far from now, so no request of another test shares it. */
const WINDOW = 1_800_000_000;
const windowAt = (start: number) => ({ windowSeconds: 60, windowStartEpochSeconds: start, expiresAtEpochSeconds: counterExpiresAt(start, 60) });

describe('RateLimitStore', () => {
  let store: RateLimitStore;
  beforeAll(() => {
    store = new RateLimitStore(tableName());
  });

  const general = (tokens: number, limit = 1200) => ({ policy: 'general' as const, limit, tokens });

  it('counts 50 parallel one-token adds of one window atomically: exactly 1..50', async () => {
    // Prepare
    const keyId = uniqueKeyId();
    // Act
    const results = await Promise.all(Array.from({ length: 50 }, () => store.addWithinLimits(keyId, windowAt(WINDOW), [general(1)])));
    // Assess
    expect(results.every((result) => result.applied)).toBe(true);
    expect(results.map((result) => result.counts.general ?? 0).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, index) => index + 1));
  });

  it('refuses an add that would pass the limit, changes nothing, and returns the counts the condition saw', async () => {
    // Prepare
    const keyId = uniqueKeyId();
    await store.addWithinLimits(keyId, windowAt(WINDOW), [general(95, 100)]);
    // Act
    const refused = await store.addWithinLimits(keyId, windowAt(WINDOW), [general(6, 100)]);
    const exact = await store.addWithinLimits(keyId, windowAt(WINDOW), [general(5, 100)]);
    const spent = await store.addWithinLimits(keyId, windowAt(WINDOW), [general(1, 100)]);
    // Assess
    expect(refused).toEqual({ applied: false, counts: { general: 95 } });
    expect(exact).toEqual({ applied: true, counts: { general: 100 } });
    expect(spent).toEqual({ applied: false, counts: { general: 100 } });
  });

  it('lets 20 containers leasing blocks of 8 in parallel take exactly the limit of 100, no token more', async () => {
    // Prepare
    const keyId = uniqueKeyId();
    // Act: each lease is a full block while it fits, else exactly what the failed condition says is left.
    const grants = await Promise.all(
      Array.from({ length: 20 }, () => leaseTokens([general(8, 100)], (adds) => store.addWithinLimits(keyId, windowAt(WINDOW), adds))),
    );
    // Assess
    const granted = grants.map((grant) => grant.get('general')?.granted ?? 0);
    expect(granted.reduce((sum, tokens) => sum + tokens, 0)).toBe(100);
    expect(granted.every((tokens) => tokens <= 8)).toBe(true);
    const { Item } = await documentClient.send(
      new GetCommand({ TableName: tableName(), Key: { pk: rateLimitCounterKey(keyId, 60, WINDOW) }, ConsistentRead: true }),
    );
    expect(Item?.general).toBe(100);
  });

  it('adds to both policies of a submission in one update, each on its own count', async () => {
    // Prepare
    const keyId = uniqueKeyId();
    await store.addWithinLimits(keyId, windowAt(WINDOW), [general(1)]);
    // Act
    const both = await store.addWithinLimits(keyId, windowAt(WINDOW), [general(1), { policy: 'submission', limit: 20, tokens: 1 }]);
    // Assess
    expect(both).toEqual({ applied: true, counts: { general: 2, submission: 1 } });
  });

  it('refuses the whole add when one policy would pass its limit, with both counts', async () => {
    // Prepare
    const keyId = uniqueKeyId();
    await store.addWithinLimits(keyId, windowAt(WINDOW), [general(4), { policy: 'submission', limit: 2, tokens: 2 }]);
    // Act
    const refused = await store.addWithinLimits(keyId, windowAt(WINDOW), [general(1), { policy: 'submission', limit: 2, tokens: 1 }]);
    // Assess
    expect(refused).toEqual({ applied: false, counts: { general: 4, submission: 2 } });
  });

  it.each([
    ['another key', { keyId: 'other', policy: 'general', window: WINDOW }],
    ['another policy', { keyId: 'same', policy: 'submission', window: WINDOW }],
    ['the next window', { keyId: 'same', policy: 'general', window: WINDOW + 60 }],
  ] as const)('keeps %s independent', async (_label, other) => {
    // Prepare
    const keyId = uniqueKeyId();
    for (let i = 0; i < 3; i += 1) await store.addWithinLimits(keyId, windowAt(WINDOW), [general(1)]);
    // Act
    const otherCount = await store.addWithinLimits(other.keyId === 'same' ? keyId : uniqueKeyId(), windowAt(other.window), [
      { policy: other.policy, limit: 1200, tokens: 1 },
    ]);
    const sameCount = await store.addWithinLimits(keyId, windowAt(WINDOW), [general(1)]);
    // Assess
    expect(otherCount.counts[other.policy]).toBe(1);
    expect(sameCount.counts.general).toBe(4);
  });

  it('stores the counter with its TTL, entity and schema version', async () => {
    // Prepare
    const keyId = uniqueKeyId();
    // Act
    await store.addWithinLimits(keyId, windowAt(WINDOW), [general(1), { policy: 'submission', limit: 20, tokens: 1 }]);
    // Assess
    const { Item } = await documentClient.send(
      new GetCommand({ TableName: tableName(), Key: { pk: rateLimitCounterKey(keyId, 60, WINDOW) }, ConsistentRead: true }),
    );
    expect(Item).toEqual({
      pk: `RL#${keyId}#60s#${WINDOW}`,
      general: 1,
      submission: 1,
      ttl: WINDOW + 120,
      entity: 'rate-limit-counter',
      schemaVersion: 2,
    });
  });
});

describe('submission limit in the chain (real composition root, synthetic route)', () => {
  // No submission route exists yet; a synthetic one runs the very chain every route gets.
  const base: RouteDefinition = {
    operationId: 'testSubmission',
    method: 'GET',
    path: '/v1/test/submissions',
    scope: 'labels:read',
    submission: true,
    handler: 'functions/http/fallback/not-found.ts',
    summary: 'Synthetic submission route',
    tag: 'Test',
    success: { status: 200, description: 'ok' },
    errorStatuses: [],
    access: { tables: {} },
  };
  const readBase: RouteDefinition = { ...base, operationId: 'testRead', submission: false };
  const submit = createOperationHandler(bindOperation(base, { operationId: base.operationId, request: {} }), chainDependencies, async () => ({
    status: 200,
    json: { submitted: true },
  }));
  const read = createOperationHandler(bindOperation(readBase, { operationId: readBase.operationId, request: {} }), chainDependencies, async () => ({
    status: 200,
    json: { read: true },
  }));
  const invoke = async (handler: typeof submit, key: string) => {
    const event = apiGatewayEvent(base, { key });
    return handler(event, invocationContext(event));
  };

  it('answers the 21st submission of a window with 429 while the general window still has budget', { timeout: 120_000 }, async () => {
    // Prepare: the defaults (20 / 1200) apply, the test env sets no RATE_LIMIT_* variable. 21
    // requests take well under a second; start with ≥ 10 s left so the window cannot reset midway.
    const { key } = await createTestKey({ scopes: ['labels:read'] });
    await awaitWindowWithAtLeast(10);
    const accepted = await Promise.all(Array.from({ length: 20 }, () => invoke(submit, key)));
    // Act
    const refused = await invoke(submit, key);
    const stillReading = await invoke(read, key);
    // Assess
    expect(accepted.map((response) => response.statusCode)).toEqual(Array(20).fill(200));
    expect(accepted.map((response) => parseRateLimitField(response.headers.RateLimit).submission?.r).sort((a = 0, b = 0) => a - b)).toEqual(
      Array.from({ length: 20 }, (_, index) => index),
    );
    expect(refused.statusCode).toBe(429);
    expect(JSON.parse(String(refused.body))).toMatchObject({ code: 'customer-api.rate-limit.exceeded' });
    expect(refused.body).toContain('submission');
    const retryAfter = Number(refused.headers['Retry-After']);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(Math.abs(retryAfter - secondsLeftInWindow())).toBeLessThanOrEqual(2);
    expect(parseRateLimitField(refused.headers['RateLimit-Policy'])).toEqual({ general: { q: 1200, w: 60 }, submission: { q: 20, w: 60 } });
    expect(parseRateLimitField(refused.headers.RateLimit)).toEqual({
      general: { r: 1200 - 21, t: retryAfter },
      submission: { r: 0, t: retryAfter },
    });
    expect(stillReading.statusCode).toBe(200);
    expect(parseRateLimitField(stillReading.headers.RateLimit)).toEqual({ general: { r: 1200 - 22, t: expect.any(Number) } });
  });
});
