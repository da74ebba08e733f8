import { describe, expect, it } from 'vitest';
import { generateApiKey } from '../../../lib/platform/auth/api-key.ts';
import type { ApiKeyLookup } from '../../../lib/platform/auth/ports.ts';
import type { RateLimitPolicies } from '../../../lib/platform/rate-limit/fixed-window.ts';
import { renderBarcodeContract } from '../../../lib/labels/contracts.ts';
import { bindOperation } from '../../../lib/platform/contracts/operation.ts';
import { createOperationHandler, type ChainDependencies } from '../../../lib/platform/http/chain.ts';
import { routeById } from '../../../lib/app/routes.ts';
import type { RouteDefinition } from '../../../lib/platform/contracts/route-types.ts';
import { apiGatewayEvent, invocationContext } from '../../../local/api-gateway-events.ts';
import { TokenLeases } from '../../../lib/platform/rate-limit/token-leases.ts';
import { InMemoryCounter } from './in-memory-counter.ts';
import { keyRecord } from './key-record.ts';

/**
 * The rate limit inside the real chain, with in-memory ports: where it sits (after auth, before
 * validation) decides which responses carry the RateLimit headers.
 */

const POLICIES: RateLimitPolicies = {
  general: { name: 'general', limit: 3, windowSeconds: 60 },
  submission: { name: 'submission', limit: 2, windowSeconds: 60 },
};

const LABELS_KEY = generateApiKey('test');
const OTHER_SCOPE_KEY = generateApiKey('test');

const record = keyRecord;

const KEYS: ApiKeyLookup = {
  findByHash: async (keyHash) => [record(LABELS_KEY, ['labels:read']), record(OTHER_SCOPE_KEY, ['boms:read'])].find((r) => r.keyHash === keyHash),
};

function setup(route: RouteDefinition = routeById('renderBarcode')) {
  const counter = new InMemoryCounter();
  const dependencies: ChainDependencies = { apiKeys: KEYS, rateLimits: new TokenLeases(counter), rateLimitPolicies: POLICIES };
  let handled = 0;
  const handler = createOperationHandler(bindOperation(route, renderBarcodeContract), dependencies, async () => {
    handled += 1;
    return { status: 200, json: { ok: true } };
  });
  const invoke = async (request: Parameters<typeof apiGatewayEvent>[1]) => {
    const event = apiGatewayEvent(route, request);
    return handler(event, invocationContext(event));
  };
  return { counter, invoke, handledCount: () => handled };
}

describe('the chain with the rate limit', () => {
  it('puts the general window on a success', async () => {
    // Prepare
    const { invoke } = setup();
    // Act
    const response = await invoke({ key: LABELS_KEY, query: 'payload=x' });
    // Assess
    expect(response.statusCode).toBe(200);
    expect(response.headers['RateLimit-Policy']).toBe('"general";q=3;w=60');
    expect(response.headers.RateLimit).toMatch(/^"general";r=2;t=\d+$/);
  });

  it('counts an invalid request and puts the headers on its 400 problem', async () => {
    // Prepare
    const { invoke, counter } = setup();
    // Act
    const response = await invoke({ key: LABELS_KEY, query: 'payload=x&widthMm=0' });
    // Assess
    expect(response.statusCode).toBe(400);
    expect(response.headers.RateLimit).toMatch(/^"general";r=2;t=\d+$/);
    expect(counter.calls).toHaveLength(1);
  });

  it.each([
    ['no key', undefined, 401],
    ['a key without the scope', OTHER_SCOPE_KEY, 403],
  ])('does not count %s (%i: no usable key identified) and announces only the policy', async (_label, key, status) => {
    // Prepare
    const { invoke, counter } = setup();
    // Act
    const response = await invoke({ key, query: 'payload=x' });
    // Assess
    expect(response.statusCode).toBe(status);
    expect(response.headers).not.toHaveProperty('RateLimit');
    expect(response.headers['RateLimit-Policy']).toMatch(/^"general";q=\d+;w=60$/);
    expect(counter.calls).toHaveLength(0);
  });

  it('answers the 4th request with a 429 problem before the handler or validation runs', async () => {
    // Prepare
    const { invoke, handledCount } = setup();
    for (let i = 0; i < 3; i += 1) expect((await invoke({ key: LABELS_KEY, query: 'payload=x' })).statusCode).toBe(200);
    // Act
    const response = await invoke({ key: LABELS_KEY, query: 'widthMm=not-even-valid' });
    // Assess
    expect(response.statusCode).toBe(429);
    expect(response.headers['Content-Type']).toBe('application/problem+json');
    expect(Number(response.headers['Retry-After'])).toBeGreaterThanOrEqual(1);
    expect(response.headers.RateLimit).toBe(`"general";r=0;t=${response.headers['Retry-After']}`);
    expect(JSON.parse(String(response.body))).toMatchObject({ status: 429, code: 'customer-api.rate-limit.exceeded' });
    expect(handledCount()).toBe(3);
  });

  it('adds the submission window on submission routes', async () => {
    // Prepare
    const { invoke } = setup({ ...routeById('renderBarcode'), submission: true });
    // Act
    const response = await invoke({ key: LABELS_KEY, query: 'payload=x' });
    // Assess
    expect(response.headers['RateLimit-Policy']).toBe('"general";q=3;w=60, "submission";q=2;w=60');
    expect(response.headers.RateLimit).toMatch(/^"general";r=2;t=\d+, "submission";r=1;t=\d+$/);
  });
});
