import { ROUTES } from '../../../../lib/app/routes.ts';
import type { FetchLike } from '../../../../client/types.ts';

/**
 * Records which routes of lib/app/routes.ts a client reached, as `METHOD /template`, by wrapping its
 * fetch: the end-to-end suite proves with it that the client has been used on every route.
 */

interface Template {
  label: string;
  method: string;
  pattern: RegExp;
  /** Literal segments first: `/revisions/compare` wins over `/revisions/{revisionId}`. */
  parameters: number;
}

const TEMPLATES: Template[] = ROUTES.map((route) => ({
  label: `${route.method} ${route.path}`,
  method: route.method,
  pattern: new RegExp(`^${route.path.replace(/\{[^}]+\}/g, '[^/]+')}$`),
  parameters: (route.path.match(/\{/g) ?? []).length,
})).sort((left, right) => left.parameters - right.parameters);

export const ALL_ROUTE_LABELS: readonly string[] = ROUTES.map((route) => `${route.method} ${route.path}`);

/** `GET /v1/boms/{id}` for `GET /v1/boms/bom_1?x=1`; undefined for a path no route claims. */
export function routeLabelOf(method: string, url: string): string | undefined {
  const { pathname } = new URL(url);
  return TEMPLATES.find((template) => template.method === method && template.pattern.test(pathname))?.label;
}

export function recordingRoutes(inner: FetchLike = (request) => globalThis.fetch(request)) {
  const reached = new Set<string>();
  const fetch: FetchLike = async (request) => {
    const response = await inner(request);
    const label = routeLabelOf(request.method, request.url);
    // Only routes the client reached with a success count: an error proves little about the client.
    if (label !== undefined && response.ok) reached.add(label);
    return response;
  };
  return { fetch, reached };
}
