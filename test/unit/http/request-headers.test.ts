import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import { bindOperation, type OperationContract } from '../../../lib/platform/contracts/operation.ts';
import { generateApiKey, hashApiKey } from '../../../lib/platform/auth/api-key.ts';
import type { ApiKeyLookup } from '../../../lib/platform/auth/ports.ts';
import type { CommandWriter, IdempotencyRecords } from '../../../lib/platform/write/ports.ts';
import { createOperationHandler, type ChainDependencies } from '../../../lib/platform/http/chain.ts';
import { writeDependencies } from '../../../lib/platform/http/write-dependencies.ts';
import { validateRequest } from '../../../lib/platform/http/middleware/validate-request.ts';
import type { ApiContext, MiddyRequest } from '../../../lib/platform/http/types.ts';
import type { RouteDefinition } from '../../../lib/platform/contracts/route-types.ts';
import { apiGatewayEvent, invocationContext } from '../../../local/api-gateway-events.ts';
import { TokenLeases } from '../../../lib/platform/rate-limit/token-leases.ts';
import { InMemoryCounter } from '../rate-limit/in-memory-counter.ts';

/**
 * Request headers a contract declares (the coming `If-Match` of PUT routes), on a test-only PUT
 * route: validated with query and body, reported like query values, and handed to the handler
 * parsed. Undeclared headers (Authorization, Accept, …) are never validation errors.
 */

const KEY = generateApiKey('test');

const replaceRoute: RouteDefinition = {
  operationId: 'testReplaceThing',
  method: 'PUT',
  path: '/v1/test/things/{id}',
  scope: 'boms:write',
  submission: false,
  handler: 'test/unit/http/request-headers.test.ts',
  summary: 'Replace a thing',
  tag: 'Boms',
  requestBody: { mediaType: 'json' },
  success: { status: 200, description: 'The thing.', mediaType: 'json' },
  errorStatuses: [400, 404, 409, 412],
  access: { tables: {} },
};

const replaceContract = {
  operationId: 'testReplaceThing',
  request: {
    path: z.strictObject({ id: z.string().min(1) }),
    headers: z.strictObject({ 'If-Match': z.string().regex(/^"[^"]+"$/, { message: 'Must be a quoted entity tag.' }) }),
    body: z.strictObject({ name: z.string().min(1) }),
  },
} satisfies OperationContract;

const operation = bindOperation(replaceRoute, replaceContract);

/** Fails the test if reached: every request here must be refused before the write begins. */
function unreachable(): never {
  throw new Error('The write path ran for a request that should have failed validation');
}

const dependencies: ChainDependencies = {
  apiKeys: {
    findByHash: async (keyHash) =>
      keyHash === hashApiKey(KEY)
        ? {
            keyId: 'key_1',
            keyHash,
            organizationId: 'org_1',
            name: 'unit',
            scopes: ['boms:write'],
            createdAt: '2026-01-01T00:00:00Z',
            revokedAt: null,
            expiresAt: null,
          }
        : undefined,
  } satisfies ApiKeyLookup,
  rateLimits: new TokenLeases(new InMemoryCounter()),
  rateLimitPolicies: { general: { name: 'general', limit: 100, windowSeconds: 60 }, submission: { name: 'submission', limit: 100, windowSeconds: 60 } },
  writes: writeDependencies(
    { claim: unreachable, complete: unreachable, release: unreachable } satisfies IdempotencyRecords,
    { run: unreachable } satisfies CommandWriter,
  ),
};

const handler = createOperationHandler(operation, dependencies, unreachable);

async function put(headers: Record<string, string>) {
  const event = apiGatewayEvent(replaceRoute, {
    key: KEY,
    path: '/v1/test/things/thg_1',
    headers: { 'content-type': 'application/json', 'idempotency-key': 'k-1', ...headers },
    body: JSON.stringify({ name: 'bolt' }),
  });
  event.pathParameters = { id: 'thg_1' };
  const response = await handler(event, invocationContext(event));
  return { status: response.statusCode, problem: JSON.parse(String(response.body)) as { code: string; errors?: unknown[] } };
}

describe('declared request headers', () => {
  it('answers 400 naming the header when a declared header has a bad value', async () => {
    // Act
    const { status, problem } = await put({ 'If-Match': 'not-quoted' });
    // Assess
    expect(status).toBe(400);
    expect(problem.code).toBe('customer-api.validation.failed');
    expect(problem.errors).toEqual([{ location: 'header', name: 'If-Match', code: 'invalid-format', message: 'Must be a quoted entity tag.' }]);
  });

  it('answers 400 required when a declared header is missing', async () => {
    // Act
    const { status, problem } = await put({});
    // Assess
    expect(status).toBe(400);
    expect(problem.errors).toEqual([{ location: 'header', name: 'If-Match', code: 'required', message: 'Required.' }]);
  });

  it('hands the parsed headers to the handler, matched case-insensitively, ignoring undeclared ones', async () => {
    // Prepare
    const event = apiGatewayEvent(replaceRoute, {
      headers: { 'content-type': 'application/json', 'IF-MATCH': '"v1"', 'X-Other': 'x' },
      body: '{"name":"bolt"}',
    });
    event.pathParameters = { id: 'thg_1' };
    const context: ApiContext = invocationContext(event);
    context.requestState = { traceId: 'trace' };
    const request = { event, context, response: undefined, error: undefined, internal: {} } as unknown as MiddyRequest;
    // Act
    await validateRequest(operation).before?.(request);
    // Assess
    expect(context.requestState.input?.headers).toEqual({ 'If-Match': '"v1"' });
  });
});
