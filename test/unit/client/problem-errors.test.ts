import { describe, expect, it } from 'vitest';
import { ApiProblemError, createInventoryClient, unwrap, UNEXPECTED_RESPONSE_CODE } from '../../../client/index.ts';
import { retryAfterMs } from '../../../client/http/retry-after.ts';
import { scriptedFetch } from './support/fake-fetch.ts';

/** Typed errors for answers that are not problem documents, and Retry-After parsing (docs/client.md#typed-errors). */

describe('ApiProblemError', () => {
  it('wraps a non-problem answer (a proxy page) with the status, a client code and X-Trace-Id', async () => {
    // Prepare
    const transport = scriptedFetch(
      () => new Response('<html>Bad gateway</html>', { status: 502, statusText: 'Bad Gateway', headers: { 'content-type': 'text/html', 'x-trace-id': 't-1' } }),
    );
    const client = createInventoryClient({ baseUrl: 'http://api.test', apiKey: 'k', fetch: transport.fetch, retry: { maxAttempts: 1 } });
    // Act
    const error = await unwrap(client.api.GET('/v1/boms')).catch((caught: unknown) => caught);
    // Assess
    expect(error).toBeInstanceOf(ApiProblemError);
    expect(error).toMatchObject({
      status: 502,
      code: UNEXPECTED_RESPONSE_CODE,
      title: 'Bad Gateway',
      detail: '<html>Bad gateway</html>',
      traceId: 't-1',
      problem: '<html>Bad gateway</html>',
      errors: [],
    });
  });
});

describe('retryAfterMs', () => {
  const answer = (value?: string) => new Response(null, { status: 429, headers: value === undefined ? {} : { 'retry-after': value } });

  it.each([
    ['18', 18_000],
    ['0', 0],
    [undefined, undefined],
    ['soon', undefined],
    ['-1', undefined],
  ])('reads %j as %j ms', (value, expected) => {
    expect(retryAfterMs(answer(value))).toBe(expected);
  });

  it('reads an HTTP date relative to now', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(retryAfterMs(answer('Thu, 01 Jan 2026 00:00:07 GMT'), () => now)).toBe(7000);
  });
});
