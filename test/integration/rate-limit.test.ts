import { randomBytes } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { chainDependencies } from '../../lib/composition.ts';
import { counterExpiresAt } from '../../lib/domain/rate-limit/fixed-window.ts';
import { bindOperation } from '../../lib/contracts/operation.ts';
import { createOperationHandler } from '../../lib/http/chain.ts';
import type { RouteDefinition } from '../../lib/routes/types.ts';
import { documentClient } from '../../lib/store/clients.ts';
import { RateLimitStore, rateLimitCounterKey } from '../../lib/store/rate-limit-store.ts';
import { TABLES } from '../../lib/store/tables.ts';
import { createTestKey } from '../support/api.ts';
import { apiGatewayEvent, invocationContext } from '../../local/api-gateway-events.ts';
import { awaitWindowWithAtLeast, parseRateLimitField, secondsLeftInWindow } from '../support/rate-limit-window.ts';

/** The rate limit on DynamoDB Local: the counter store, and the chain with the real composition root. */

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

  it('counts 50 parallel increments of one window atomically: exactly 1..50', async () => {
    // Prepare
    const keyId = uniqueKeyId();
    // Act
    const counts = await Promise.all(Array.from({ length: 50 }, () => store.increment(keyId, windowAt(WINDOW), ['general'])));
    // Assess
    expect(counts.map((count) => count.general ?? 0).sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, index) => index + 1));
  });

  it('counts both policies of a submission in one update, each on its own count', async () => {
    // Prepare
    const keyId = uniqueKeyId();
    await store.increment(keyId, windowAt(WINDOW), ['general']);
    // Act
    const both = await store.increment(keyId, windowAt(WINDOW), ['general', 'submission']);
    // Assess
    expect(both).toEqual({ general: 2, submission: 1 });
  });

  it.each([
    ['another key', { keyId: 'other', policy: 'general', window: WINDOW }],
    ['another policy', { keyId: 'same', policy: 'submission', window: WINDOW }],
    ['the next window', { keyId: 'same', policy: 'general', window: WINDOW + 60 }],
  ] as const)('keeps %s independent', async (_label, other) => {
    // Prepare
    const keyId = uniqueKeyId();
    for (let i = 0; i < 3; i += 1) await store.increment(keyId, windowAt(WINDOW), ['general']);
    // Act
    const otherCount = await store.increment(other.keyId === 'same' ? keyId : uniqueKeyId(), windowAt(other.window), [other.policy]);
    const sameCount = await store.increment(keyId, windowAt(WINDOW), ['general']);
    // Assess
    expect(otherCount[other.policy]).toBe(1);
    expect(sameCount.general).toBe(4);
  });

  it('stores the counter with its TTL, entity and schema version', async () => {
    // Prepare
    const keyId = uniqueKeyId();
    // Act
    await store.increment(keyId, windowAt(WINDOW), ['general', 'submission']);
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
