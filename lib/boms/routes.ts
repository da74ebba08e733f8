import { BOM_JSON_BODY_MAX_BYTES } from './domain/bom.ts';
import type { RouteDefinition } from '../platform/contracts/route-types.ts';

/**
 * The Boms routes (bills of materials, their builds and revisions). A handler imports its own
 * route from this file, never lib/app/routes.ts, so its bundle carries one route, not the table.
 */

export const listBomsRoute = {
  operationId: 'listBoms',
  method: 'GET',
  path: '/v1/boms',
  scope: 'boms:read',
  submission: false,
  handler: 'functions/http/boms/list-boms.ts',
  summary: 'List BOMs',
  tag: 'Boms',
  success: { status: 200, description: 'A page of BOM summaries, oldest first; a filtered page may hold fewer than `limit`.', mediaType: 'json' },
  errorStatuses: [400],
  access: { tables: { inventory: 'read' }, cursorSecret: true },
} as const satisfies RouteDefinition;

export const createBomRoute = {
  operationId: 'createBom',
  method: 'POST',
  path: '/v1/boms',
  scope: 'boms:write',
  submission: false,
  handler: 'functions/http/boms/create-bom.ts',
  summary: 'Create a BOM (revision 1)',
  tag: 'Boms',
  requestBody: { mediaType: 'json', maxBytes: BOM_JSON_BODY_MAX_BYTES },
  success: {
    status: 201,
    description: 'The BOM.',
    mediaType: 'json',
    headers: { Location: 'Relative URL of the BOM.', ETag: 'The version of the BOM; send it as `If-Match` with a `PUT`.' },
  },
  errorStatuses: [400, 409],
  access: { tables: { inventory: 'read-write' } },
} as const satisfies RouteDefinition;

export const getBomRoute = {
  operationId: 'getBom',
  method: 'GET',
  path: '/v1/boms/{id}',
  scope: 'boms:read',
  submission: false,
  handler: 'functions/http/boms/get-bom.ts',
  summary: 'Read a BOM',
  tag: 'Boms',
  success: {
    status: 200,
    description: 'The BOM with its lines and current revision.',
    mediaType: 'json',
    headers: { ETag: 'The version of the BOM; send it as `If-Match` with a `PUT`.' },
  },
  errorStatuses: [404],
  access: { tables: { inventory: 'read' } },
} as const satisfies RouteDefinition;

export const updateBomRoute = {
  operationId: 'updateBom',
  method: 'PUT',
  path: '/v1/boms/{id}',
  scope: 'boms:write',
  submission: false,
  handler: 'functions/http/boms/update-bom.ts',
  summary: 'Update or archive a BOM (a new revision when the content changes)',
  tag: 'Boms',
  requestBody: { mediaType: 'json', maxBytes: BOM_JSON_BODY_MAX_BYTES },
  success: {
    status: 200,
    description: 'The BOM as updated.',
    mediaType: 'json',
    headers: { ETag: 'The version of the BOM; send it as `If-Match` with a `PUT`.' },
  },
  errorStatuses: [400, 404, 409],
  access: { tables: { inventory: 'read-write' } },
} as const satisfies RouteDefinition;

export const listBomBuildsRoute = {
  operationId: 'listBomBuilds',
  method: 'GET',
  path: '/v1/boms/{id}/builds',
  scope: 'boms:read',
  submission: false,
  handler: 'functions/http/boms/list-bom-builds.ts',
  summary: 'List the builds of a BOM that consumed a stock record',
  tag: 'Boms',
  success: { status: 200, description: 'A page of build provenance records.', mediaType: 'json' },
  errorStatuses: [400, 404],
  access: { tables: { inventory: 'read' }, cursorSecret: true },
} as const satisfies RouteDefinition;

export const listBomRevisionsRoute = {
  operationId: 'listBomRevisions',
  method: 'GET',
  path: '/v1/boms/{id}/revisions',
  scope: 'boms:read',
  submission: false,
  handler: 'functions/http/boms/list-bom-revisions.ts',
  summary: 'List the revisions of a BOM',
  tag: 'Boms',
  success: { status: 200, description: 'A page of revision summaries, oldest first.', mediaType: 'json' },
  errorStatuses: [400, 404],
  access: { tables: { inventory: 'read' }, cursorSecret: true },
} as const satisfies RouteDefinition;

export const compareBomRevisionsRoute = {
  operationId: 'compareBomRevisions',
  method: 'GET',
  path: '/v1/boms/{id}/revisions/compare',
  scope: 'boms:read',
  submission: false,
  handler: 'functions/http/boms/compare-bom-revisions.ts',
  summary: 'Compare two revisions of a BOM',
  tag: 'Boms',
  success: { status: 200, description: 'Header changes, component lines added, removed and changed (matched by item), and counts.', mediaType: 'json' },
  errorStatuses: [400, 404],
  access: { tables: { inventory: 'read' } },
} as const satisfies RouteDefinition;

export const getBomRevisionRoute = {
  operationId: 'getBomRevision',
  method: 'GET',
  path: '/v1/boms/{id}/revisions/{revisionId}',
  scope: 'boms:read',
  submission: false,
  handler: 'functions/http/boms/get-bom-revision.ts',
  summary: 'Read a revision of a BOM (its full snapshot)',
  tag: 'Boms',
  success: { status: 200, description: 'The revision.', mediaType: 'json' },
  errorStatuses: [404],
  access: { tables: { inventory: 'read' } },
} as const satisfies RouteDefinition;

/** The area's routes in table order; lib/app/routes.ts registers them. */
export const BOM_ROUTES = [
  listBomsRoute,
  createBomRoute,
  getBomRoute,
  updateBomRoute,
  listBomBuildsRoute,
  listBomRevisionsRoute,
  compareBomRevisionsRoute,
  getBomRevisionRoute,
] as const satisfies readonly RouteDefinition[];
