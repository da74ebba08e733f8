import type { RouteDefinition } from '../platform/contracts/route-types.ts';

/**
 * The Exports routes (docs/exports.md). A handler imports its own route from this file, never
 * lib/app/routes.ts, so its bundle carries one route, not the table.
 */

export const listExportKindsRoute = {
  operationId: 'listExportKinds',
  method: 'GET',
  path: '/v1/exports/kinds',
  scope: 'exports:read',
  submission: false,
  handler: 'functions/http/exports/list-export-kinds.ts',
  summary: 'List export kinds with their columns and filters',
  tag: 'Exports',
  success: { status: 200, description: 'The export kinds.', mediaType: 'json' },
  errorStatuses: [400],
  access: { tables: {}, cursorSecret: true },
} as const satisfies RouteDefinition;

export const submitExportRoute = {
  operationId: 'submitExport',
  method: 'POST',
  path: '/v1/exports',
  scope: 'exports:write',
  submission: true,
  handler: 'functions/http/exports/submit-export.ts',
  summary: 'Submit an export job',
  tag: 'Exports',
  requestBody: { mediaType: 'json' },
  success: {
    status: 202,
    description: 'The queued export; poll the URL in `Location`.',
    mediaType: 'json',
    headers: { Location: 'Relative URL of the export, e.g. /v1/exports/exp_01J…' },
  },
  errorStatuses: [400, 409, 413, 415],
  access: { tables: { inventory: 'read-write' }, queues: { exports: 'send' } },
} as const satisfies RouteDefinition;

export const getExportRoute = {
  operationId: 'getExport',
  method: 'GET',
  path: '/v1/exports/{id}',
  scope: 'exports:read',
  submission: false,
  handler: 'functions/http/exports/get-export.ts',
  summary: 'Read an export job',
  tag: 'Exports',
  success: { status: 200, description: 'The export with its status, row count and snapshot position.', mediaType: 'json' },
  errorStatuses: [404],
  access: { tables: { inventory: 'read' } },
} as const satisfies RouteDefinition;

export const getExportDownloadUrlRoute = {
  operationId: 'getExportDownloadUrl',
  method: 'GET',
  path: '/v1/exports/{id}/download-url',
  scope: 'exports:read',
  submission: false,
  handler: 'functions/http/exports/get-export-download-url.ts',
  summary: 'Mint a short-lived download link for a finished export',
  tag: 'Exports',
  success: { status: 200, description: 'A presigned link, valid 15 minutes.', mediaType: 'json' },
  errorStatuses: [404, 409],
  access: { tables: { inventory: 'read' }, exportObjects: 'get' },
} as const satisfies RouteDefinition;

/** The area's routes in table order; lib/app/routes.ts registers them. */
export const EXPORT_ROUTES = [listExportKindsRoute, submitExportRoute, getExportRoute, getExportDownloadUrlRoute] as const satisfies readonly RouteDefinition[];
