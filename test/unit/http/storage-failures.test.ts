import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as z from 'zod';
import { bindOperation, type OperationContract } from '../../../lib/platform/contracts/operation.ts';
import { generateApiKey, hashApiKey } from '../../../lib/platform/auth/api-key.ts';
import type { ApiKeyLookup } from '../../../lib/platform/auth/ports.ts';
import { BomCodeTakenError } from '../../../lib/boms/domain/errors.ts';
import { NotFoundError } from '../../../lib/platform/core/errors.ts';
import type { RateLimitCounter } from '../../../lib/platform/rate-limit/fixed-window.ts';
import { TokenLeases } from '../../../lib/platform/rate-limit/token-leases.ts';
import type { CommandWriter, IdempotencyRecords } from '../../../lib/platform/write/ports.ts';
import { createOperationHandler, type ChainDependencies } from '../../../lib/platform/http/chain.ts';
import { writeDependencies } from '../../../lib/platform/http/write-dependencies.ts';
import { withProblemDocuments } from '../../../lib/platform/http/middleware/problem-documents.ts';
import type { RouteDefinition } from '../../../lib/platform/contracts/route-types.ts';
import { apiGatewayEvent, invocationContext } from '../../../local/api-gateway-events.ts';
import { captureOutput } from '../observability/capture-output.ts';
import { InMemoryCounter } from '../rate-limit/in-memory-counter.ts';

/**
 * A storage failure at any step of a write route's chain — key lookup, rate-limit counter,
 * idempotency claim, the write itself, the idempotency completion or release — leaves as a
 * problem document with `code` and `traceId`, never as an unhandled error (API Gateway's bare
 * 500), and nothing of the failure (message, stack, the API key) reaches the body.
 */

const KEY = generateApiKey('test');

const createRoute: RouteDefinition = {
  operationId: 'testCreateThing',
  method: 'POST',
  path: '/v1/test/things',
  scope: 'boms:write',
  submission: false,
  handler: 'test/unit/http/storage-failures.test.ts',
  summary: 'Create a thing',
  tag: 'Boms',
  requestBody: { mediaType: 'json' },
  success: { status: 201, description: 'The thing.', mediaType: 'json' },
  errorStatuses: [400, 404, 409],
  access: { tables: {} },
};

const createContract = {
  operationId: 'testCreateThing',
  request: { body: z.strictObject({ name: z.string().min(1) }) },
} satisfies OperationContract;

/** An AWS SDK-like throttling error whose message and stack must never reach a client. */
function throttled(step: string): Error {
  const error = new Error(`Rate of requests exceeds the allowed throughput (${step}; key ${KEY})`);
  error.name = 'ThrottlingException';
  Object.assign(error, { $retryable: { throttling: true }, $metadata: { httpStatusCode: 400 } });
  return error;
}

type Step = 'lookup' | 'counter' | 'claim' | 'write' | 'complete' | 'release';

interface Calls {
  claim: number;
  complete: number;
  release: number;
  run: number;
}

function setup(failing: Step | undefined) {
  const calls: Calls = { claim: 0, complete: 0, release: 0, run: 0 };
  const fail = (step: Step) => {
    if (failing === step) throw throttled(step);
  };
  const counter = new InMemoryCounter();
  const rateLimitCounter: RateLimitCounter = {
    addWithinLimits: async (...args) => {
      fail('counter');
      return counter.addWithinLimits(...args);
    },
  };
  const rateLimits = new TokenLeases(rateLimitCounter);
  const apiKeys: ApiKeyLookup = {
    findByHash: async (keyHash) => {
      fail('lookup');
      return keyHash === hashApiKey(KEY)
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
        : undefined;
    },
  };
  const idempotency: IdempotencyRecords = {
    claim: async (organizationId, keyHash) => {
      calls.claim += 1;
      fail('claim');
      return { kind: 'claimed', claim: { organizationId, keyHash, token: 'token-1' } };
    },
    complete: async () => {
      calls.complete += 1;
      fail('complete');
    },
    release: async () => {
      calls.release += 1;
      fail('release');
    },
  };
  const writer: CommandWriter = {
    run: async (_context, build, respond) => {
      calls.run += 1;
      fail('write');
      const plan = await build();
      // The commit met a unique key already taken: the 409 the request ends in, stored via `complete`.
      if (failing === 'complete') throw new BomCodeTakenError('T-1');
      return { result: plan.result, response: respond?.(plan.result), events: [], attempts: 1 };
    },
  };
  const dependencies: ChainDependencies = {
    apiKeys,
    rateLimits,
    rateLimitPolicies: { general: { name: 'general', limit: 100, windowSeconds: 60 }, submission: { name: 'submission', limit: 100, windowSeconds: 60 } },
    writes: writeDependencies(idempotency, writer),
  };
  const handler = createOperationHandler(bindOperation(createRoute, createContract), dependencies, async ({ body, commit }) => {
    // An unknown reference found before the write begins: the claim is given back (`release`).
    if (failing === 'release') throw new NotFoundError('boms', 'No such thing.');
    return commit(
      async () => ({ writes: [], events: [], result: { id: 'thg_1', name: body.name } }),
      (result) => ({ status: 201, json: result }),
    );
  });
  const invoke = async () => {
    const event = apiGatewayEvent(createRoute, {
      key: KEY,
      headers: { 'content-type': 'application/json', 'idempotency-key': 'k-1' },
      body: JSON.stringify({ name: 'bolt' }),
    });
    return handler(event, invocationContext(event));
  };
  return { invoke, calls };
}

let output: ReturnType<typeof captureOutput>;

beforeEach(() => {
  output = captureOutput();
});

afterEach(() => {
  vi.restoreAllMocks();
});

function expectInternalProblem(response: Awaited<ReturnType<ReturnType<typeof setup>['invoke']>>) {
  expect(response.statusCode).toBe(500);
  expect(response.headers['Content-Type']).toBe('application/problem+json');
  const body = String(response.body);
  const problem = JSON.parse(body) as Record<string, unknown>;
  expect(problem).toMatchObject({ status: 500, code: 'customer-api.internal', type: 'urn:problem-type:customer-api.internal', instance: '/v1/test/things' });
  expect(problem.traceId).toEqual(expect.any(String));
  expect(problem.traceId).toBe(response.headers['X-Trace-Id']);
  for (const secret of [KEY, 'ThrottlingException', 'Rate of requests', 'throughput', 'storage-failures.test', '    at ']) expect(body).not.toContain(secret);
  return problem;
}

describe('a storage failure at each step of the chain', () => {
  it('runs the whole chain without failures (the baseline the cases below break)', async () => {
    // Prepare
    const { invoke, calls } = setup(undefined);
    // Act
    const response = await invoke();
    // Assess
    expect(response.statusCode).toBe(201);
    expect(calls).toEqual({ claim: 1, complete: 0, release: 0, run: 1 });
  });

  it.each<[string, Step, Partial<Calls>]>([
    ['the key lookup', 'lookup', { claim: 0, run: 0 }],
    ['the rate-limit counter', 'counter', { claim: 0, run: 0 }],
    ['the idempotency claim', 'claim', { claim: 1, run: 0, release: 0 }],
    ["the handler's write (the claim is released)", 'write', { claim: 1, run: 1, release: 1 }],
    ['the idempotency completion of a refused write', 'complete', { claim: 1, run: 1, complete: 1, release: 0 }],
    ['the idempotency release after a refusal before the write', 'release', { claim: 1, run: 0, release: 1 }],
  ])('answers a 500 problem document with code and traceId when %s fails', async (_label, step, expectedCalls) => {
    // Prepare
    const { invoke, calls } = setup(step);
    // Act
    const response = await invoke();
    // Assess
    const problem = expectInternalProblem(response);
    expect(calls).toMatchObject(expectedCalls);
    // The failure is logged (for operators) under the same traceId.
    expect(output.lines().join('\n')).toContain(String(problem.traceId));
  });

  it('answers a problem document even when an error escapes every middleware', async () => {
    // Prepare
    const handler = withProblemDocuments(async () => {
      throw throttled('outside');
    });
    const event = apiGatewayEvent(createRoute, { key: KEY });
    // Act
    const response = await handler(event, invocationContext(event));
    // Assess
    const problem = expectInternalProblem(response);
    expect(problem.traceId).toEqual(expect.any(String));
  });
});
