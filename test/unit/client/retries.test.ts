import { describe, expect, it } from 'vitest';
import { ApiNetworkError, ApiProblemError, createInventoryClient, formBody, unwrap, type InventoryClientOptions } from '../../../client/index.ts';
import { json, networkError, problem, recordingSleep, scriptedFetch, type FakeFetch } from './support/fake-fetch.ts';

/** Retries, backoff and Idempotency-Key reuse of the client's transport (docs/client.md#retries). */

const BOM = { id: 'bom_1', code: 'PUMP' };

function clientOver(transport: FakeFetch, options: Partial<InventoryClientOptions> = {}) {
  const { sleep, sleeps } = recordingSleep();
  let keys = 0;
  const client = createInventoryClient({
    baseUrl: 'http://api.test',
    apiKey: 'ik_test_key',
    fetch: transport.fetch,
    sleep,
    random: () => 0,
    newIdempotencyKey: () => `key-${++keys}`,
    ...options,
  });
  return { client, sleeps };
}

const createBom = (client: ReturnType<typeof clientOver>['client'], header?: { 'Idempotency-Key': string }) =>
  unwrap(
    client.api.POST('/v1/boms', {
      body: { code: 'PUMP', name: 'Pump', targetItemId: 'itm_1', components: [{ itemId: 'itm_2', quantity: 1 }] },
      params: { header },
    }),
  );

describe('the retrying transport', () => {
  it('waits Retry-After seconds on a 429, then succeeds', async () => {
    // Prepare
    const transport = scriptedFetch(
      () => problem(429, 'customer-api.rate-limit.exceeded', { 'retry-after': '18' }),
      () => json(BOM),
    );
    const { client, sleeps } = clientOver(transport);
    // Act
    const bom = await unwrap(client.api.GET('/v1/boms/{id}', { params: { path: { id: 'bom_1' } } }));
    // Assess
    expect(bom).toEqual(BOM);
    expect(transport.requests).toHaveLength(2);
    expect(sleeps).toEqual([18_000]);
  });

  it('adds at most baseDelayMs of jitter to Retry-After', async () => {
    const transport = scriptedFetch(
      () => problem(429, 'customer-api.rate-limit.exceeded', { 'retry-after': '2' }),
      () => json(BOM),
    );
    const { client, sleeps } = clientOver(transport, { random: () => 0.5, retry: { baseDelayMs: 100 } });
    await unwrap(client.api.GET('/v1/boms/{id}', { params: { path: { id: 'bom_1' } } }));
    expect(sleeps).toEqual([2050]);
  });

  it('sends one Idempotency-Key per logical write and the same one on every retry', async () => {
    // Prepare: the first call is retried three times (in-progress, 503, network error), the second not at all
    const transport = scriptedFetch(
      () => problem(409, 'customer-api.idempotency.in-progress', { 'retry-after': '1' }),
      () => problem(503, 'customer-api.internal'),
      () => networkError(),
      () => json(BOM, 201),
    );
    const { client, sleeps } = clientOver(transport);
    // Act
    await createBom(client);
    await createBom(client);
    // Assess
    const keys = transport.requests.map((request) => request.headers.get('idempotency-key'));
    expect(keys).toEqual(['key-1', 'key-1', 'key-1', 'key-1', 'key-2']);
    expect(new Set(transport.requests.map((request) => request.body)).size).toBe(1);
    expect(sleeps).toHaveLength(3);
    expect(sleeps[0]).toBe(1000);
  });

  it("keeps a caller's own Idempotency-Key across retries", async () => {
    const transport = scriptedFetch(
      () => problem(500, 'customer-api.internal'),
      () => json(BOM, 201),
    );
    const { client } = clientOver(transport);
    await createBom(client, { 'Idempotency-Key': 'erp-order-42' });
    expect(transport.requests.map((request) => request.headers.get('idempotency-key'))).toEqual(['erp-order-42', 'erp-order-42']);
  });

  it('sends no Idempotency-Key on a GET', async () => {
    const transport = scriptedFetch(() => json(BOM));
    const { client } = clientOver(transport);
    await unwrap(client.api.GET('/v1/boms/{id}', { params: { path: { id: 'bom_1' } } }));
    expect(transport.requests[0]?.headers.has('idempotency-key')).toBe(false);
    expect(transport.requests[0]?.headers.get('authorization')).toBe('Bearer ik_test_key');
  });

  it('never retries a 400 and throws it as a typed problem', async () => {
    // Prepare
    const field = { location: 'body', pointer: '/code', code: 'too-long', message: 'At most 64 characters.' };
    const transport = scriptedFetch(() => problem(400, 'customer-api.validation.failed', {}, { errors: [field] }));
    const { client, sleeps } = clientOver(transport);
    // Act
    const error = await createBom(client).catch((caught: unknown) => caught);
    // Assess
    expect(transport.requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
    expect(error).toBeInstanceOf(ApiProblemError);
    expect(error).toMatchObject({
      status: 400,
      code: 'customer-api.validation.failed',
      title: 'Title of customer-api.validation.failed',
      detail: 'Detail of customer-api.validation.failed',
      traceId: 'trace-400',
      errors: [field],
      problem: expect.objectContaining({ code: 'customer-api.validation.failed', instance: '/v1/x' }),
    });
    expect((error as Error).message).toBe('400 customer-api.validation.failed: Detail of customer-api.validation.failed (traceId trace-400)');
  });

  it.each([
    [404, 'customer-api.boms.not-found'],
    [409, 'customer-api.idempotency.key-reused'],
    [409, 'customer-api.boms.code-taken'],
    [403, 'customer-api.auth.insufficient-scope'],
  ])('never retries a %i %s', async (status, code) => {
    const transport = scriptedFetch(() => problem(status, code));
    const { client } = clientOver(transport);
    await expect(createBom(client)).rejects.toMatchObject({ status, code });
    expect(transport.requests).toHaveLength(1);
  });

  it('retries a 5xx only when retryServerErrors is on', async () => {
    const failing = () =>
      scriptedFetch(
        () => problem(500, 'customer-api.internal'),
        () => json(BOM),
      );
    const on = failing();
    const off = failing();
    await unwrap(clientOver(on).client.api.GET('/v1/boms/{id}', { params: { path: { id: 'bom_1' } } }));
    await expect(
      unwrap(clientOver(off, { retry: { retryServerErrors: false } }).client.api.GET('/v1/boms/{id}', { params: { path: { id: 'bom_1' } } })),
    ).rejects.toMatchObject({
      status: 500,
    });
    expect([on.requests.length, off.requests.length]).toEqual([2, 1]);
  });

  it('gives up after maxAttempts and throws the last answer', async () => {
    const transport = scriptedFetch(() => problem(429, 'customer-api.rate-limit.exceeded', { 'retry-after': '1' }));
    const { client, sleeps } = clientOver(transport, { retry: { maxAttempts: 3 } });
    await expect(createBom(client)).rejects.toMatchObject({ status: 429, code: 'customer-api.rate-limit.exceeded' });
    expect(transport.requests).toHaveLength(3);
    expect(sleeps).toHaveLength(2);
  });

  it('backs off exponentially with full jitter, capped at maxDelayMs', async () => {
    // Prepare: random just below 1 shows each ceiling
    const transport = scriptedFetch(() => networkError());
    const { client, sleeps } = clientOver(transport, { random: () => 0.999999, retry: { maxAttempts: 7, baseDelayMs: 100, maxDelayMs: 1000 } });
    // Act
    const error = await unwrap(client.api.GET('/v1/boms/{id}', { params: { path: { id: 'bom_1' } } })).catch((caught: unknown) => caught);
    // Assess
    expect(sleeps).toEqual([99, 199, 399, 799, 999, 999]);
    expect(error).toBeInstanceOf(ApiNetworkError);
    expect(error).toMatchObject({ attempts: 7 });
  });

  it('sends the same multipart body on every attempt', async () => {
    const transport = scriptedFetch(
      () => problem(502, 'customer-api.internal'),
      () => json({ id: 'imp_1' }, 202),
    );
    const { client } = clientOver(transport);
    const file = new File(['sku,name\nA,a\n'], 'items.csv', { type: 'text/csv' });
    await unwrap(client.api.POST('/v1/imports/jobs', { body: { kind: 'items', duplicateStrategy: 'skip', file }, bodySerializer: formBody }));
    const [first, second] = transport.requests;
    expect(second?.body).toBe(first?.body);
    expect(await (second?.form?.get('file') as File).text()).toBe('sku,name\nA,a\n');
    expect(second?.headers.get('idempotency-key')).toBe(first?.headers.get('idempotency-key'));
  });

  it('stops waiting and attempting when the caller aborts', async () => {
    // Prepare: a sleep that aborts the call while it waits
    const controller = new AbortController();
    const transport = scriptedFetch(() => problem(429, 'customer-api.rate-limit.exceeded', { 'retry-after': '30' }));
    const { client } = clientOver(transport, {
      sleep: async (_ms, signal) => {
        controller.abort();
        signal?.throwIfAborted();
      },
    });
    // Act + Assess
    await expect(client.api.GET('/v1/boms/{id}', { params: { path: { id: 'bom_1' } }, signal: controller.signal })).rejects.toMatchObject({
      name: 'AbortError',
    });
    expect(transport.requests).toHaveLength(1);
  });

  it('reports each retry through onRetry', async () => {
    const events: unknown[] = [];
    const transport = scriptedFetch(
      () => problem(429, 'customer-api.rate-limit.exceeded', { 'retry-after': '3' }),
      () => json(BOM),
    );
    const { client } = clientOver(transport, { onRetry: (event) => events.push(event) });
    await unwrap(client.api.GET('/v1/boms/{id}', { params: { path: { id: 'bom_1' } } }));
    expect(events).toEqual([{ attempt: 1, reason: 'rate-limited', delayMs: 3000, method: 'GET', url: 'http://api.test/v1/boms/bom_1', status: 429 }]);
  });
});
