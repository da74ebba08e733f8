import { describe, expect, it } from 'vitest';
import { assertDocumentedResponse, UndocumentedResponseError } from '../support/openapi-responses.ts';

/**
 * The response check every e2e call goes through (test/support/openapi-responses.ts), on
 * hand-made responses: it must pass what docs/openapi.json documents and fail everything else.
 */

const RATE_LIMIT = { RateLimit: '"general";r=99;t=60', 'RateLimit-Policy': '"general";q=100;w=60' };

function problem(status: number, code: string): Response {
  const body = { type: `urn:problem-type:${code}`, title: 'Problem', status, instance: '/v1/x', code, traceId: 't-1' };
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/problem+json', ...RATE_LIMIT } });
}

const kinds = { data: [], page: { nextCursor: null } };

describe('assertDocumentedResponse', () => {
  it('passes a documented JSON success in each offered media type, text/plain as the JSON string it is', async () => {
    for (const type of ['application/json', 'text/json', 'text/plain']) {
      const response = new Response(JSON.stringify(kinds), { status: 200, headers: { 'Content-Type': `${type}; charset=utf-8`, ...RATE_LIMIT } });
      await expect(assertDocumentedResponse({ method: 'GET', url: '/v1/imports/kinds' }, response)).resolves.toBeUndefined();
    }
  });

  it('leaves the response unread for the caller', async () => {
    const response = new Response(JSON.stringify(kinds), { status: 200, headers: { 'Content-Type': 'application/json' } });
    await assertDocumentedResponse({ method: 'GET', url: '/v1/imports/kinds' }, response);
    await expect(response.json()).resolves.toEqual(kinds);
  });

  it('fails a body of the wrong shape, also inside text/plain', async () => {
    for (const type of ['application/json', 'text/plain']) {
      const response = new Response(JSON.stringify({ items: [] }), { status: 200, headers: { 'Content-Type': type } });
      await expect(assertDocumentedResponse({ method: 'GET', url: '/v1/imports/kinds' }, response)).rejects.toThrow(UndocumentedResponseError);
    }
  });

  it('fails an undocumented status and an undocumented media type', async () => {
    await expect(assertDocumentedResponse({ method: 'GET', url: '/v1/imports/kinds' }, problem(418, 'customer-api.request.teapot'))).rejects.toThrow(
      /Status Code/,
    );
    const xml = new Response('<kinds/>', { status: 200, headers: { 'Content-Type': 'application/xml' } });
    await expect(assertDocumentedResponse({ method: 'GET', url: '/v1/imports/kinds' }, xml)).rejects.toThrow(/Media Type/);
  });

  it('fails a body without a Content-Type, and a missing body where one is documented', async () => {
    const headerless = new Response('{}', { status: 200 });
    headerless.headers.delete('content-type');
    await expect(assertDocumentedResponse({ method: 'GET', url: '/v1/imports/kinds' }, headerless)).rejects.toThrow(/without a Content-Type/);
    await expect(assertDocumentedResponse({ method: 'GET', url: '/v1/imports/kinds' }, new Response(null, { status: 200 }))).rejects.toThrow(/without one/);
  });

  it('checks problem codes against the ones listed for the operation and status', async () => {
    await expect(assertDocumentedResponse({ method: 'GET', url: '/v1/boms/bom_1' }, problem(404, 'customer-api.boms.not-found'))).resolves.toBeUndefined();
    await expect(assertDocumentedResponse({ method: 'GET', url: '/v1/boms/bom_1' }, problem(404, 'customer-api.imports.not-found'))).rejects.toThrow(/code/);
    await expect(assertDocumentedResponse({ method: 'GET', url: '/v1/boms' }, problem(401, 'customer-api.auth.unauthenticated'))).resolves.toBeUndefined();
  });

  it('knows 304 of GET /v1/barcodes, without a body', async () => {
    const notModified = new Response(null, { status: 304, headers: { ETag: '"abc"', ...RATE_LIMIT } });
    await expect(assertDocumentedResponse({ method: 'GET', url: '/v1/barcodes?payload=x' }, notModified)).resolves.toBeUndefined();
  });

  it('checks documented headers against their schemas', async () => {
    const response = problem(429, 'customer-api.rate-limit.exceeded');
    response.headers.set('Retry-After', 'soon');
    await expect(assertDocumentedResponse({ method: 'GET', url: '/v1/boms' }, response)).rejects.toThrow(/response-header/);
    response.headers.set('Retry-After', '3');
    await expect(assertDocumentedResponse({ method: 'GET', url: '/v1/boms' }, response)).resolves.toBeUndefined();
  });

  it("accepts only the fallback's 404 and 405 problems for requests no route claims", async () => {
    await expect(assertDocumentedResponse({ method: 'GET', url: '/v1/nothing' }, problem(404, 'customer-api.route.not-found'))).resolves.toBeUndefined();
    await expect(
      assertDocumentedResponse({ method: 'PATCH', url: '/v1/boms' }, problem(405, 'customer-api.request.method-not-allowed')),
    ).resolves.toBeUndefined();
    await expect(assertDocumentedResponse({ method: 'GET', url: '/v1/nothing' }, problem(404, 'customer-api.boms.not-found'))).rejects.toThrow(/fallback/);
    const html = new Response('<p>hi</p>', { status: 200, headers: { 'Content-Type': 'text/html' } });
    await expect(assertDocumentedResponse({ method: 'GET', url: '/v1/nothing' }, html)).rejects.toThrow(/no operation/);
  });
});
