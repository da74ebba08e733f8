import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { log } from '../../../lib/platform/observability/log.ts';
import { captureOutput } from './capture-output.ts';
import { KEY, readHandler } from './chain-fixture.ts';

/**
 * The shape of a request's log lines (docs/operations.md "Logs"): every line logged while a
 * request runs carries the function's context (cold start, name, request id) and the request's
 * traceId, and nothing of its headers, body or key.
 */

const SECRET_HEADER = 'x-custom-secret';
const SECRET_VALUE = 'header-value-that-must-not-be-logged';

let output: ReturnType<typeof captureOutput>;

beforeEach(() => {
  output = captureOutput();
});

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

describe('a request log line', () => {
  it('carries cold start, function name, request id and the traceId of its request', async () => {
    // Prepare
    const invoke = readHandler(async ({ traceId }) => {
      log('info', 'thing listed', { traceIdSeen: traceId });
      return { status: 200, json: {} };
    });

    // Act
    const { event, response } = await invoke({ key: KEY });

    // Assess
    expect(response.statusCode).toBe(200);
    const line = output.json().find((entry) => entry.message === 'thing listed');
    expect(line).toMatchObject({
      level: 'INFO',
      service: 'customer-api',
      cold_start: expect.any(Boolean),
      function_name: 'testListThings',
      function_request_id: event.requestContext.requestId,
      traceId: event.requestContext.requestId,
    });
    expect(line?.traceId).toBe(line?.traceIdSeen);
    expect(line?.traceId).toBe(response.headers['X-Trace-Id']);
  });

  it('says cold start on the first invocation of the container only', async () => {
    // Prepare: a fresh container started on demand (Lambda sets the variable), with its own logger
    vi.stubEnv('AWS_LAMBDA_INITIALIZATION_TYPE', 'on-demand');
    vi.resetModules();
    const fresh = { ...(await import('./chain-fixture.ts')), ...(await import('../../../lib/platform/observability/log.ts')) };
    const invoke = fresh.readHandler(async () => {
      fresh.log('info', 'thing listed');
      return { status: 200, json: {} };
    });

    // Act
    await invoke({ key: fresh.KEY });
    await invoke({ key: fresh.KEY });

    // Assess
    const lines = output.json().filter((entry) => entry.message === 'thing listed');
    expect(lines.map((entry) => entry.cold_start)).toEqual([true, false]);
  });

  it('drops the traceId of a request once it is over: the next request logs its own', async () => {
    // Prepare
    const invoke = readHandler(async () => {
      log('info', 'thing listed');
      return { status: 200, json: {} };
    });

    // Act
    const first = await invoke({ key: KEY });
    const second = await invoke({ key: KEY });
    log('info', 'between requests');

    // Assess
    const lines = output.json();
    expect(lines.filter((entry) => entry.message === 'thing listed').map((entry) => entry.traceId)).toEqual([
      first.event.requestContext.requestId,
      second.event.requestContext.requestId,
    ]);
    expect(lines.find((entry) => entry.message === 'between requests')).not.toHaveProperty('traceId');
  });

  it('logs a failed request under its traceId without its headers, body or key', async () => {
    // Prepare
    const invoke = readHandler(async () => {
      throw new Error('storage unavailable');
    });

    // Act
    const { response } = await invoke({ key: KEY, headers: { [SECRET_HEADER]: SECRET_VALUE }, query: 'limit=query-value-secret' });

    // Assess
    expect(response.statusCode).toBe(500);
    const line = output.json().find((entry) => entry.message === 'request failed');
    expect(line).toMatchObject({
      level: 'ERROR',
      traceId: response.headers['X-Trace-Id'],
      errorMessage: 'storage unavailable',
      function_name: 'testListThings',
    });
    const all = output.lines().join('\n');
    for (const secret of [KEY, SECRET_HEADER, SECRET_VALUE, 'query-value-secret', 'Bearer']) expect(all).not.toContain(secret);
  });
});
