import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { operationEntry } from '../../lib/app/operations.ts';
import { generateApiKey } from '../../lib/platform/auth/api-key.ts';
import { SCOPES } from '../../lib/platform/auth/scopes.ts';
import { callApi, createTestKey, keysStore } from '../support/api.ts';
import { expectProblem } from '../support/problem.ts';
import { ALL_ROUTES, concretePath, isWrite, routeLabel } from '../support/routes.ts';

/**
 * Generated from lib/app/routes.ts: every route, present and future, gets the auth and robustness
 * checks below without anyone writing them again.
 */

const writeHeaders = (route: (typeof ALL_ROUTES)[number]) =>
  isWrite(route) ? { 'idempotency-key': `matrix-${Math.random()}`, 'content-type': 'application/json' } : undefined;

describe.each(ALL_ROUTES.map((route) => [routeLabel(route), route] as const))('%s', (_label, route) => {
  const path = concretePath(route);
  const call = (key?: string, headers: Record<string, string> = {}) =>
    callApi(path, { method: route.method, key, headers: { ...writeHeaders(route), ...headers }, body: isWrite(route) ? '{}' : undefined });

  let revokedKey: string;
  let expiredKey: string;
  let wrongScopeKey: string;

  beforeAll(async () => {
    const revoked = await createTestKey();
    await keysStore().revoke(revoked.record.keyId, new Date().toISOString());
    revokedKey = revoked.key;
    expiredKey = (await createTestKey({ expiresAt: new Date(Date.now() - 1000).toISOString() })).key;
    wrongScopeKey = (await createTestKey({ scopes: SCOPES.filter((scope) => scope !== route.scope) })).key;
  });

  it('answers 401 with WWW-Authenticate when no key is sent', async () => {
    // Act
    const response = await call();
    // Assess
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(response.headers.get('ratelimit-policy')).toContain(route.submission ? '"submission"' : '"general"');
    await expectProblem(response, 401, 'customer-api.auth.unauthenticated');
  });

  it('answers identical 401 bodies (but traceId) for malformed, unknown, revoked and expired keys', async () => {
    // Prepare
    const good = generateApiKey('test');
    const candidates: Array<[string, Record<string, string>]> = [
      ['malformed', { authorization: 'Bearer not-a-key' }],
      ['bad checksum', { authorization: `Bearer ${good.slice(0, -1)}${good.endsWith('A') ? 'B' : 'A'}` }],
      ['wrong scheme', { authorization: `Basic ${good}` }],
      ['unknown', { authorization: `Bearer ${good}` }],
      ['revoked', { authorization: `Bearer ${revokedKey}` }],
      ['expired', { authorization: `Bearer ${expiredKey}` }],
    ];
    // Act
    const bodies = await Promise.all(
      candidates.map(async ([label, headers]) => {
        const response = await call(undefined, headers);
        expect(response.headers.get('www-authenticate'), label).toMatch(/^Bearer/);
        const { traceId, ...rest } = await expectProblem(response, 401, 'customer-api.auth.unauthenticated');
        expect(traceId).toBeTruthy();
        return rest;
      }),
    );
    // Assess
    for (const body of bodies) expect(body).toEqual(bodies[0]);
  });

  it(`answers 403 with requiredScope=${route.scope} for a key without that scope`, async () => {
    const problem = await expectProblem(await call(wrongScopeKey), 403, 'customer-api.auth.insufficient-scope');
    expect(problem.requiredScope).toBe(route.scope);
  });

  it('checks auth before input: bad input without a key is still 401', async () => {
    const response = await callApi(`${concretePath(route, '%%%')}?limit=abc&unknown=1`, { method: route.method });
    await expectProblem(response, 401);
  });

  it('never answers 5xx to random query and path values (property)', async () => {
    // Prepare
    const { key } = await createTestKey({ scopes: [route.scope] });
    const { query: querySchema } = operationEntry(route.operationId)?.contract.request ?? {};
    const queryNames = [...Object.keys(querySchema?._zod.def.shape ?? {}), 'limit', 'cursor', 'x'];
    const value = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.string({ unit: 'grapheme', maxLength: 20 }),
      fc.constantFrom('', '-1', '1e3', '007', '%', '2147483648', 'null'),
    );
    const query = fc.dictionary(fc.constantFrom(...queryNames), value, { maxKeys: 4 });
    const segment = fc.oneof(fc.string({ minLength: 1, maxLength: 30 }), fc.constantFrom('..', '%2F', '%00', 'bom_', 'x'.repeat(300)));
    // Act + Assess
    await fc.assert(
      fc.asyncProperty(query, segment, async (params, pathValue) => {
        const url = `${concretePath(route, pathValue)}?${new URLSearchParams(params).toString()}`;
        const response = await callApi(url, { method: route.method, key, headers: writeHeaders(route), body: isWrite(route) ? '{}' : undefined });
        expect(response.status, url).toBeLessThan(500);
        if (response.status >= 400) await expectProblem(response, response.status);
        else await response.arrayBuffer();
      }),
      { numRuns: 60 },
    );
  });
});

describe('requests no route claims', () => {
  it('answers 404 route.not-found for an unknown path, without a key', async () => {
    await expectProblem(await callApi('/v1/nothing-here'), 404, 'customer-api.route.not-found');
  });

  it.each(ALL_ROUTES.map((route) => [routeLabel(route), route] as const))('answers 405 with Allow for a wrong method on %s', async (_label, route) => {
    // Prepare
    // PATCH answers only items and locations by id, where no route answers PUT; DELETE would reach
    // DELETE /v1/attachments/{id} from /v1/attachments/upload.
    const wrongMethod = ALL_ROUTES.some((other) => other.path === route.path && other.method === 'PATCH') ? 'PUT' : 'PATCH';
    // Act
    const response = await callApi(concretePath(route), { method: wrongMethod });
    // Assess
    expect(response.headers.get('allow')).toContain(route.method);
    await expectProblem(response, 405, 'customer-api.request.method-not-allowed');
  });
});
