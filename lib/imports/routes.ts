import { MAX_FILE_BYTES } from './domain/types.ts';
import type { RouteDefinition } from '../platform/contracts/route-types.ts';

/**
 * The Imports routes (file import jobs and their kinds). A handler imports its own route from this
 * file, never lib/app/routes.ts, so its bundle carries one route, not the table.
 */

export const listImportKindsRoute = {
  operationId: 'listImportKinds',
  method: 'GET',
  path: '/v1/imports/kinds',
  scope: 'imports:read',
  submission: false,
  handler: 'functions/http/imports/list-import-kinds.ts',
  summary: 'List import kinds with their columns and limits',
  tag: 'Imports',
  success: { status: 200, description: 'The import kinds.', mediaType: 'json' },
  errorStatuses: [400],
  access: { tables: {}, cursorSecret: true },
} as const satisfies RouteDefinition;

export const submitImportJobRoute = {
  operationId: 'submitImportJob',
  method: 'POST',
  path: '/v1/imports/jobs',
  scope: 'imports:write',
  submission: true,
  handler: 'functions/http/imports/submit-import-job.ts',
  summary: 'Submit a file import job',
  tag: 'Imports',
  // One file of at most MAX_FILE_BYTES and a few short fields: anything more is refused early.
  requestBody: { mediaType: 'multipart', limits: { maxFileBytes: MAX_FILE_BYTES, maxFiles: 1, maxFields: 8, maxFieldBytes: 1024 } },
  success: {
    status: 202,
    description: 'The queued job; poll the URL in `Location`.',
    mediaType: 'json',
    headers: { Location: 'Relative URL of the job, e.g. /v1/imports/jobs/imp_01J…' },
  },
  errorStatuses: [400, 404, 409, 413, 415],
  access: { tables: { inventory: 'read-write' }, bucket: 'write', importQueue: 'send' },
} as const satisfies RouteDefinition;

export const getImportJobRoute = {
  operationId: 'getImportJob',
  method: 'GET',
  path: '/v1/imports/jobs/{id}',
  scope: 'imports:read',
  submission: false,
  handler: 'functions/http/imports/get-import-job.ts',
  summary: 'Read an import job',
  tag: 'Imports',
  success: { status: 200, description: 'The job with its status and counts.', mediaType: 'json' },
  errorStatuses: [404],
  access: { tables: { inventory: 'read' } },
} as const satisfies RouteDefinition;

export const listImportRowErrorsRoute = {
  operationId: 'listImportRowErrors',
  method: 'GET',
  path: '/v1/imports/jobs/{id}/errors',
  scope: 'imports:read',
  submission: false,
  handler: 'functions/http/imports/list-import-row-errors.ts',
  summary: 'List the row errors of a finished import job',
  tag: 'Imports',
  success: { status: 200, description: 'Row errors in row order.', mediaType: 'json' },
  errorStatuses: [400, 404, 409],
  access: { tables: { inventory: 'read' }, cursorSecret: true },
} as const satisfies RouteDefinition;

/** The area's routes in table order; lib/app/routes.ts registers them. */
export const IMPORT_ROUTES = [
  listImportKindsRoute,
  submitImportJobRoute,
  getImportJobRoute,
  listImportRowErrorsRoute,
] as const satisfies readonly RouteDefinition[];
