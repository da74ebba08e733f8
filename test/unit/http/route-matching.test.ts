import { describe, expect, it } from 'vitest';
import { createRouteMatcher } from '../../../lib/platform/http/route-matching.ts';
import type { RouteDefinition } from '../../../lib/platform/contracts/route-types.ts';

const route = (method: RouteDefinition['method'], path: string) => ({ method, path, operationId: `${method} ${path}` }) as RouteDefinition;

describe('createRouteMatcher', () => {
  const match = createRouteMatcher([
    route('GET', '/v1/boms/{id}'),
    route('PUT', '/v1/boms/{id}'),
    route('GET', '/v1/boms/{id}/revisions/compare'),
    route('GET', '/v1/boms/{id}/revisions/{revisionId}'),
  ]);

  it('extracts and decodes path parameters', () => {
    const outcome = match('GET', '/v1/boms/bom%5F1');
    expect(outcome).toMatchObject({ kind: 'matched', match: { pathParameters: { id: 'bom_1' } } });
  });

  it('prefers literal segments over parameters', () => {
    const outcome = match('GET', '/v1/boms/b1/revisions/compare');
    expect(outcome.kind === 'matched' && outcome.match.route.path).toBe('/v1/boms/{id}/revisions/compare');
  });

  it('reports the allowed methods of a known path', () => {
    expect(match('DELETE', '/v1/boms/b1')).toEqual({ kind: 'method-not-allowed', allowed: ['GET', 'PUT'] });
  });

  it.each(['/v1/boms', '/v1/boms/', '/v1/boms/a/b', '/v2/boms/a'])('does not match %s', (path) => {
    expect(match('GET', path)).toEqual({ kind: 'not-found' });
  });

  it('keeps a malformed escape raw instead of throwing', () => {
    expect(match('GET', '/v1/boms/%E0%A4%A')).toMatchObject({ kind: 'matched', match: { pathParameters: { id: '%E0%A4%A' } } });
  });
});
