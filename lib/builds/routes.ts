import type { RouteDefinition } from '../platform/contracts/route-types.ts';

/**
 * The Builds routes: a build of a BOM of any size, run as a job that reserves its components
 * first (docs/boms.md "Builds"). A handler imports its own route from this file, never
 * lib/app/routes.ts.
 */

export const submitBuildRoute = {
  operationId: 'submitBuild',
  method: 'POST',
  path: '/v1/builds',
  scope: 'boms:write',
  submission: true,
  handler: 'functions/http/builds/submit-build.ts',
  summary: 'Submit a build of a BOM: it reserves every component, then consumes and produces',
  tag: 'Builds',
  requestBody: { mediaType: 'json' },
  success: {
    status: 202,
    description: 'The queued build; poll the URL in `Location`.',
    mediaType: 'json',
    headers: { Location: 'Relative URL of the build, e.g. /v1/builds/bld_01J…' },
  },
  errorStatuses: [400, 409],
  // Reads the BOM, items, locations and the reference's claim; writes the build and the claim; queues it.
  access: { tables: { inventory: 'read-write' }, queues: { builds: 'send' } },
} as const satisfies RouteDefinition;

export const getBuildRoute = {
  operationId: 'getBuild',
  method: 'GET',
  path: '/v1/builds/{id}',
  scope: 'boms:read',
  submission: false,
  handler: 'functions/http/builds/get-build.ts',
  summary: 'Read a build: its status, the step it runs next, and why it failed',
  tag: 'Builds',
  success: { status: 200, description: 'The build.', mediaType: 'json' },
  errorStatuses: [404],
  access: { tables: { inventory: 'read' } },
} as const satisfies RouteDefinition;

export const BUILD_ROUTES = [submitBuildRoute, getBuildRoute] as const;
