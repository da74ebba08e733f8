import { ROUTES } from '../../lib/app/routes.ts';
import type { RouteDefinition } from '../../lib/platform/contracts/route-types.ts';

/** Route-table helpers shared by the generated route-matrix tests. */

export const ALL_ROUTES: readonly RouteDefinition[] = ROUTES;

export const isWrite = (route: RouteDefinition): boolean => route.method !== 'GET';

/** A concrete path for a template, with the given value (or a plausible id) in each parameter. */
export function concretePath(route: RouteDefinition, value?: string): string {
  return route.path.replace(/\{([A-Za-z]+)\}/g, (_all, name: string) => encodeURIComponent(value ?? `${name.slice(0, 3)}_01J000000000000000000000`));
}

export const routeLabel = (route: RouteDefinition) => `${route.method} ${route.path}`;
