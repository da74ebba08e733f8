import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { counterExpiresAt, windowStartOf } from '../../lib/platform/rate-limit/fixed-window.ts';
import { documentClient } from '../../lib/platform/aws/clients.ts';
import { rateLimitCounterKey } from '../../lib/platform/dynamo/rate-limit-store.ts';
import { TABLES } from '../../lib/platform/storage/tables.ts';
import { callApi, createTestKey } from '../support/api.ts';
import { expectProblem } from '../support/problem.ts';
import { awaitWindowWithAtLeast, parseRateLimitField, secondsLeftInWindow, withinOneWindow } from '../support/rate-limit-window.ts';

/**
 * Per-key rate limits over HTTP against `npm start`'s server with the default limits (1200
 * general per 60 s). GET /v1/barcodes is the only route so far; every route runs the same chain.
 *
 * Windows are fixed and reset on every whole minute. A budget test must not straddle a reset, or
 * its counter starts over halfway: the 1200-request test stops when its window is about to reset
 * and runs again with a fresh key from the start of the next window (withinOneWindow in
 * test/support/rate-limit-window.ts); the 50-request burst starts only with ≥ 10 s left.
 */

const LIMIT = 1200;
const CONCURRENCY = 16;
const BARCODE = '/v1/barcodes?payload=x';

/**
 * Runs `count` calls with at most `concurrency` in flight; results in call order, or undefined
 * when `proceed()` turned false before every call was sent.
 */
async function pooled<T>(count: number, concurrency: number, call: (index: number) => Promise<T>, proceed = () => true): Promise<T[] | undefined> {
  const results: T[] = new Array(count);
  let next = 0;
  let stopped = false;
  await Promise.all(
    Array.from({ length: Math.min(concurrency, count) }, async () => {
      while (next < count && !stopped) {
        if (!proceed()) {
          stopped = true;
          return;
        }
        const index = next;
        next += 1;
        results[index] = await call(index);
      }
    }),
  );
  return stopped ? undefined : results;
}

interface Outcome {
  status: number;
  remaining: number | undefined;
}

async function barcode(key: string): Promise<Outcome> {
  const response = await callApi(BARCODE, { key });
  await response.arrayBuffer();
  return { status: response.status, remaining: parseRateLimitField(response.headers.get('ratelimit')).general?.r };
}

const ascending = (values: Array<number | undefined>) => [...values].sort((a = -1, b = -1) => a - b);
const range = (count: number) => Array.from({ length: count }, (_, index) => index);

/**
 * Test setup shortcut: sets the key's general counter of the current window as if `count`
 * requests had been made (the 1200-request test proves the counting over HTTP; this one only
 * needs a nearly spent budget, without another 1190 requests of CI time).
 */
async function spendBudget(keyId: string, count: number): Promise<void> {
  const windowStart = windowStartOf(Date.now(), 60);
  await documentClient.send(
    new UpdateCommand({
      TableName: process.env[TABLES['rate-limits'].envVar],
      Key: { pk: rateLimitCounterKey(keyId, 60, windowStart) },
      UpdateExpression: 'SET #general = :count, #ttl = :ttl',
      ExpressionAttributeNames: { '#general': 'general', '#ttl': 'ttl' },
      ExpressionAttributeValues: { ':count': count, ':ttl': counterExpiresAt(windowStart, 60) },
    }),
  );
}

describe('general rate limit per API key (1200 per 60 s)', () => {
  it(
    'lets 1200 requests of a fresh key through, refuses the 1201st with 429, and leaves another key of the organization alone',
    { timeout: 180_000 },
    async () => {
      // Prepare + Act: 1201 requests of key A, then one of key B, within one window (≈ 10–25 s here).
      const { allowed, refused, expectedRetryAfter, otherKey } = await withinOneWindow(async (inWindow) => {
        const keyA = await createTestKey({ scopes: ['labels:read'] });
        const keyB = await createTestKey({ scopes: ['labels:read'], organizationId: keyA.record.organizationId });
        const allowed = await pooled(LIMIT, CONCURRENCY, () => barcode(keyA.key), inWindow);
        if (!allowed || !inWindow()) return undefined;
        const refused = await callApi(BARCODE, { key: keyA.key });
        const expectedRetryAfter = secondsLeftInWindow();
        const otherKey = await callApi(BARCODE, { key: keyB.key });
        return { allowed, refused, expectedRetryAfter, otherKey };
      });
      // Assess
      expect(allowed.filter((outcome) => outcome.status !== 200)).toEqual([]);
      // Each request saw its own count: remaining went 1199, 1198, …, 0 (in whatever order they finished).
      expect(ascending(allowed.map((outcome) => outcome.remaining))).toEqual(range(LIMIT));

      expect(refused.headers.get('retry-after')).toMatch(/^[1-9][0-9]*$/);
      const retryAfter = Number(refused.headers.get('retry-after'));
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(Math.abs(retryAfter - expectedRetryAfter)).toBeLessThanOrEqual(2);
      expect(refused.headers.get('ratelimit-policy')).toBe('"general";q=1200;w=60');
      expect(parseRateLimitField(refused.headers.get('ratelimit'))).toEqual({ general: { r: 0, t: retryAfter } });
      const problem = await expectProblem(refused, 429, 'customer-api.rate-limit.exceeded');
      expect(problem.detail).toMatch(/retry after \d+ s/);

      expect(otherKey.status).toBe(200);
      expect(parseRateLimitField(otherKey.headers.get('ratelimit')).general?.r).toBe(LIMIT - 1);
      await otherKey.arrayBuffer();
    },
  );

  it('admits exactly the remaining 10 of 50 parallel requests', async () => {
    // Prepare: 1190 of the budget spent; a few seconds of window are plenty for 50 requests.
    const { key, record } = await createTestKey({ scopes: ['labels:read'] });
    await awaitWindowWithAtLeast(10);
    await spendBudget(record.keyId, LIMIT - 10);
    // Act
    const burst = await Promise.all(Array.from({ length: 50 }, () => barcode(key)));
    // Assess
    const statuses = burst.map((outcome) => outcome.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(10);
    expect(statuses.filter((status) => status === 429)).toHaveLength(40);
    expect(ascending(burst.filter((outcome) => outcome.status === 200).map((outcome) => outcome.remaining))).toEqual(range(10));
    expect(burst.filter((outcome) => outcome.status === 429).every((outcome) => outcome.remaining === 0)).toBe(true);
  });
});

describe('RateLimit headers on problem documents', () => {
  it('are on a 400 validation problem, which counts against the budget', async () => {
    // Prepare
    const { key } = await createTestKey({ scopes: ['labels:read'] });
    // Act
    const response = await callApi('/v1/barcodes?payload=x&widthMm=0', { key });
    // Assess
    expect(response.headers.get('ratelimit-policy')).toBe('"general";q=1200;w=60');
    expect(parseRateLimitField(response.headers.get('ratelimit')).general?.r).toBe(LIMIT - 1);
    await expectProblem(response, 400, 'customer-api.validation.failed');
  });

  it.each([
    ['no key (401)', undefined, 401],
    ['a key without the scope (403)', 'wrong-scope', 403],
  ])('carry only RateLimit-Policy for %s: no usable key, nothing counted', async (_label, which, status) => {
    // Prepare
    const key = which ? (await createTestKey({ scopes: ['boms:read'] })).key : undefined;
    // Act
    const response = await callApi(BARCODE, { key });
    // Assess
    expect(response.headers.get('ratelimit')).toBeNull();
    expect(response.headers.get('ratelimit-policy')).toBe('"general";q=1200;w=60');
    await expectProblem(response, status);
  });
});
