import { describe, expect, it } from 'vitest';
import { ALL_ROUTE_LABELS, recordingRoutes, routeLabelOf } from './support/route-recorder.ts';

/** The helper the end-to-end suite uses to prove the client reached every route of lib/app/routes.ts. */

describe('routeLabelOf', () => {
  it.each([
    ['GET', 'http://h/v1/boms/bom_1/revisions/compare?fromRevisionId=a', 'GET /v1/boms/{id}/revisions/compare'],
    ['GET', 'http://h/v1/boms/bom_1/revisions/rev_2', 'GET /v1/boms/{id}/revisions/{revisionId}'],
    ['GET', 'http://h/v1/boms', 'GET /v1/boms'],
    ['POST', 'http://h/v1/boms', 'POST /v1/boms'],
    ['DELETE', 'http://h/v1/attachments/att_1', 'DELETE /v1/attachments/{id}'],
    ['POST', 'http://h/v1/attachments/upload', 'POST /v1/attachments/upload'],
    ['GET', 'http://h/v1/nowhere', undefined],
    ['PATCH', 'http://h/v1/boms/bom_1', undefined],
  ])('maps %s %s to %s', (method, url, label) => {
    expect(routeLabelOf(method, url)).toBe(label);
  });

  it('knows the 58 routes of the route table', () => {
    expect(new Set(ALL_ROUTE_LABELS).size).toBe(58);
  });

  it('records only successful calls', async () => {
    const { fetch, reached } = recordingRoutes(async (request) => new Response(null, { status: request.url.endsWith('bad') ? 404 : 200 }));
    await fetch(new Request('http://h/v1/boms/good'));
    await fetch(new Request('http://h/v1/attachments/bad/download-url'.replace('download-url', 'bad'), { method: 'DELETE' }));
    expect([...reached]).toEqual(['GET /v1/boms/{id}']);
  });
});
