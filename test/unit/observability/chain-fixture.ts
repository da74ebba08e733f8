import { bindOperation, type OperationContract } from '../../../lib/platform/contracts/operation.ts';
import * as z from '../../../lib/platform/contracts/zod.ts';
import { generateApiKey, hashApiKey } from '../../../lib/platform/auth/api-key.ts';
import type { ApiKeyLookup } from '../../../lib/platform/auth/ports.ts';
import type { IdempotencyRecords } from '../../../lib/platform/write/ports.ts';
import { createOperationHandler, type ChainDependencies, type RouteHandler } from '../../../lib/platform/http/chain.ts';
import { writeDependencies } from '../../../lib/platform/http/write-dependencies.ts';
import type { RouteDefinition } from '../../../lib/platform/contracts/route-types.ts';
import { apiGatewayEvent, invocationContext, type EventRequest } from '../../../local/api-gateway-events.ts';
import { TokenLeases } from '../../../lib/platform/rate-limit/token-leases.ts';
import { InMemoryCounter } from '../rate-limit/in-memory-counter.ts';

/** One read and one write route on the real chain with in-memory ports, for the log and metric tests. */

export const KEY = generateApiKey('test');

export const readRoute: RouteDefinition = {
  operationId: 'testListThings',
  method: 'GET',
  path: '/v1/test/things',
  scope: 'boms:read',
  submission: false,
  handler: 'test/unit/observability/chain-fixture.ts',
  summary: 'List things',
  tag: 'Boms',
  success: { status: 200, description: 'The things.', mediaType: 'json' },
  errorStatuses: [400],
  access: { tables: {} },
};

export const writeRoute: RouteDefinition = {
  ...readRoute,
  operationId: 'testCreateThing',
  method: 'POST',
  scope: 'boms:write',
  summary: 'Create a thing',
  requestBody: { mediaType: 'json' },
  success: { status: 201, description: 'The thing.', mediaType: 'json' },
};

const readContract = { operationId: 'testListThings', request: { query: z.strictObject({ limit: z.optional(z.string()) }) } } satisfies OperationContract;
const writeContract = { operationId: 'testCreateThing', request: { body: z.strictObject({ name: z.string() }) } } satisfies OperationContract;

const apiKeys: ApiKeyLookup = {
  findByHash: async (keyHash) =>
    keyHash === hashApiKey(KEY)
      ? {
          keyId: 'key_1',
          keyHash,
          organizationId: 'org_1',
          name: 'unit',
          scopes: ['boms:read', 'boms:write'],
          createdAt: '2026-01-01T00:00:00Z',
          revokedAt: null,
          expiresAt: null,
        }
      : undefined,
};

/** Every claim is answered with the same stored 201: the replay path of the idempotency middleware. */
const replayingRecords: IdempotencyRecords = {
  claim: async () => ({ kind: 'replay', response: { statusCode: 201, headers: { 'Content-Type': 'application/json' }, body: '{"id":"thg_1"}' } }),
  complete: async () => undefined,
  release: async () => undefined,
};

function dependencies(limit = 100): ChainDependencies {
  return {
    apiKeys,
    rateLimits: new TokenLeases(new InMemoryCounter()),
    rateLimitPolicies: { general: { name: 'general', limit, windowSeconds: 60 }, submission: { name: 'submission', limit, windowSeconds: 60 } },
    writes: writeDependencies(replayingRecords, {
      run: async () => {
        throw new Error('a replayed request never writes');
      },
    }),
  };
}

export function readHandler(handle: RouteHandler<typeof readRoute, typeof readContract>, options: { limit?: number } = {}) {
  const handler = createOperationHandler(bindOperation(readRoute, readContract), dependencies(options.limit), handle);
  return async (request: EventRequest = {}) => {
    const event = apiGatewayEvent(readRoute, request);
    const response = await handler(event, invocationContext(event, 'testListThings'));
    return { event, response };
  };
}

export function writeHandler() {
  const handler = createOperationHandler(bindOperation(writeRoute, writeContract), dependencies(), async () => ({ status: 201, json: {} }));
  return async (request: EventRequest = {}) => {
    const event = apiGatewayEvent(writeRoute, request);
    return handler(event, invocationContext(event, 'testCreateThing'));
  };
}
