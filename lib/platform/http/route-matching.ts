import type { HttpMethod, RouteDefinition } from '../contracts/route-types.ts';

/** Matches concrete request paths against the route table's `{param}` templates. */

interface CompiledRoute<R extends RouteDefinition> {
  route: R;
  pattern: RegExp;
  parameterNames: string[];
}

export interface RouteMatch<R extends RouteDefinition> {
  route: R;
  pathParameters: Record<string, string>;
}

export type MatchOutcome<R extends RouteDefinition> =
  { kind: 'matched'; match: RouteMatch<R> } | { kind: 'method-not-allowed'; allowed: HttpMethod[] } | { kind: 'not-found' };

/** A malformed escape cannot name anything; keep it raw so validation rejects it, never throw. */
function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function compile<R extends RouteDefinition>(route: R): CompiledRoute<R> {
  const parameterNames: string[] = [];
  const source = route.path
    .split('/')
    .map((segment) => {
      const param = /^\{([A-Za-z][A-Za-z0-9]*)\}$/.exec(segment);
      if (!param?.[1]) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      parameterNames.push(param[1]);
      return '([^/]+)';
    })
    .join('/');
  return { route, pattern: new RegExp(`^${source}$`), parameterNames };
}

export function createRouteMatcher<R extends RouteDefinition>(routes: readonly R[]) {
  // Literal segments win over parameters (API Gateway's rule): sort by parameter count.
  const compiled = routes.map((route) => compile(route)).sort((a, b) => a.parameterNames.length - b.parameterNames.length);
  return (method: string, path: string): MatchOutcome<R> => {
    const allowed: HttpMethod[] = [];
    for (const candidate of compiled) {
      const found = candidate.pattern.exec(path);
      if (!found) continue;
      if (candidate.route.method !== method) {
        allowed.push(candidate.route.method);
        continue;
      }
      const pathParameters: Record<string, string> = {};
      candidate.parameterNames.forEach((name, index) => {
        pathParameters[name] = decodeSegment(found[index + 1] ?? '');
      });
      return { kind: 'matched', match: { route: candidate.route, pathParameters } };
    }
    return allowed.length > 0 ? { kind: 'method-not-allowed', allowed } : { kind: 'not-found' };
  };
}
