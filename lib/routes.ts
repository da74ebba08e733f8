import type { Scope } from './domain/auth/scopes.ts';
import { ATTACHMENT_MAX_BYTES } from './domain/attachments/attachment.ts';
import { MAX_FILE_BYTES } from './domain/imports/types.ts';
import type { TableId } from './store/tables.ts';
import { listItemsRoute, getItemRoute, listLocationsRoute, getLocationRoute, listStockRecordsRoute, getStockRecordRoute, listMovementsRoute, getMovementRoute } from './routes/inventory.ts';

/**
 * THE route table. The CDK stack, the local server, the OpenAPI generator and the route-matrix
 * tests all derive from this list; nothing else lists routes. A route enters it when its
 * handler is implemented.
 *
 * Metadata only: every function imports this module, so it imports no zod schema, no body
 * parser and no store. Each route is exported on its own (`getBomRoute`, …) and a handler
 * imports only its own, so its bundle carries one route, not the table (only the `$default`
 * function needs `ROUTES`). A route's request and response schemas are its operation contract
 * (lib/contracts/<area>…, keyed by the same operationId), which only its own handler imports;
 * `bindOperation` (lib/contracts/operation.ts) checks at cold start that the contract fits the
 * route.
 */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';
export type TableAccess = 'read' | 'write' | 'read-write';

export interface ResourceAccess {
  tables: Partial<Record<TableId, TableAccess>>;
  bucket?: 'read' | 'write' | 'read-write';
  importQueue?: 'send';
  /** Reads and deletes the import queue's dead letters (the sweeper): the function gets IMPORT_DLQ_URL. */
  importDeadLetterQueue?: 'consume';
  /** Signs and checks list cursors: the function may read the cursor secret (docs/operations.md#cursor-secret). */
  cursorSecret?: boolean;
  /**
   * Attachment bodies, under the attachments prefix of the files bucket only: `put` (upload),
   * `get` (signs download URLs), `delete` (delete), `list-delete` (the orphan sweep).
   */
  attachmentObjects?: 'put' | 'get' | 'delete' | 'list-delete';
}

export interface ResponseSpec {
  description: string;
  /** Media type of a success body; JSON routes are negotiated among the JSON types. */
  mediaType?: 'json' | 'image/svg+xml' | 'none';
  headers?: Record<string, string>;
}

/** Limits of a multipart/form-data body; lib/http/multipart.ts enforces them. */
export interface MultipartLimits {
  /** Bytes per file; one more is a 413. */
  maxFileBytes: number;
  maxFiles: number;
  maxFields: number;
  maxFieldBytes: number;
}

/** How a route's request body is sent; its schema is the contract's `request.body`. */
export type RequestBodySpec = { mediaType: 'json' } | { mediaType: 'multipart'; limits: MultipartLimits };

export interface RouteDefinition {
  operationId: string;
  method: HttpMethod;
  /** OpenAPI-style template, e.g. `/v1/boms/{id}`. */
  path: string;
  scope: Scope;
  /** Counts against the submission rate limit as well as the general one. */
  submission: boolean;
  /** Lambda entry, relative to the repository root; exports `handler`. */
  handler: string;
  summary: string;
  tag: string;
  /** Present exactly when the route takes a body. */
  requestBody?: RequestBodySpec;
  success: { status: number } & ResponseSpec;
  /** Error statuses the route documents besides the chain's own (401, 403, 406, 429, 500). */
  errorStatuses: number[];
  /** Route-specific storage access; the chain's own needs are added by `resourcesFor`. */
  access: ResourceAccess;
  /**
   * Problem documents may also be asked for as this media type (errors stay problem documents even
   * when `Accept` asks only for SVG: docs/api-guide.md "Labels").
   */
  problemMediaTypes?: string[];
}

export const renderBarcodeRoute = {
  operationId: 'renderBarcode',
  method: 'GET',
  path: '/v1/barcodes',
  scope: 'labels:read',
  submission: false,
  handler: 'functions/http/labels/render-barcode.ts',
  summary: 'Render a barcode as an SVG image',
  tag: 'Labels',
  success: {
    status: 200,
    description: 'The barcode as SVG, sized in millimetres, quiet zone included.',
    mediaType: 'image/svg+xml',
    headers: {
      ETag: 'Strong validator of the image bytes; send it back as If-None-Match to get 304.',
      'Cache-Control': 'Always `private, max-age=86400`: the image for the same query never changes.',
      'Content-Security-Policy': "Always `default-src 'none'`.",
    },
  },
  errorStatuses: [400],
  access: { tables: {} },
  problemMediaTypes: ['application/problem+json', 'image/svg+xml'],
} as const satisfies RouteDefinition;

export const listEventsRoute = {
  operationId: 'listEvents',
  method: 'GET',
  path: '/v1/events',
  scope: 'events:read',
  submission: false,
  handler: 'functions/http/events/list-events.ts',
  summary: 'Read the feed of domain events',
  tag: 'Events',
  success: { status: 200, description: 'A page of event envelopes, oldest first; `page.nextCursor` is always a string.', mediaType: 'json' },
  errorStatuses: [400],
  access: { tables: { events: 'read' }, cursorSecret: true },
} as const satisfies RouteDefinition;

export const listAuditEventsRoute = {
  operationId: 'listAuditEvents',
  method: 'GET',
  path: '/v1/audit/events',
  scope: 'audit:read',
  submission: false,
  handler: 'functions/http/audit/list-audit-events.ts',
  summary: 'List audit events, newest first',
  tag: 'Audit',
  success: { status: 200, description: 'A page of audit events, newest first.', mediaType: 'json' },
  errorStatuses: [400],
  access: { tables: { audit: 'read' }, cursorSecret: true },
} as const satisfies RouteDefinition;

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

export const listAttachmentsRoute = {
  operationId: 'listAttachments',
  method: 'GET',
  path: '/v1/attachments',
  scope: 'attachments:read',
  submission: false,
  handler: 'functions/http/attachments/list-attachments.ts',
  summary: 'List attachments, of one target or of the organization',
  tag: 'Attachments',
  success: { status: 200, description: 'A page of attachments, oldest first.', mediaType: 'json' },
  errorStatuses: [400],
  access: { tables: { inventory: 'read' }, cursorSecret: true },
} as const satisfies RouteDefinition;

export const uploadAttachmentRoute = {
  operationId: 'uploadAttachment',
  method: 'POST',
  path: '/v1/attachments/upload',
  scope: 'attachments:write',
  submission: true,
  handler: 'functions/http/attachments/upload-attachment.ts',
  summary: 'Upload a file and attach it to a record',
  tag: 'Attachments',
  // Exactly one file of at most 4 MiB and four short fields; every part has at most 20 header lines.
  requestBody: { mediaType: 'multipart', limits: { maxFileBytes: ATTACHMENT_MAX_BYTES, maxFiles: 1, maxFields: 4, maxFieldBytes: 256 } },
  success: { status: 200, description: 'The attachment.', mediaType: 'json' },
  errorStatuses: [400, 409, 413, 415],
  access: { tables: { inventory: 'read-write' }, attachmentObjects: 'put' },
} as const satisfies RouteDefinition;

export const getAttachmentDownloadUrlRoute = {
  operationId: 'getAttachmentDownloadUrl',
  method: 'GET',
  path: '/v1/attachments/{id}/download-url',
  scope: 'attachments:read',
  submission: false,
  handler: 'functions/http/attachments/get-attachment-download-url.ts',
  summary: 'Get a download URL for a file attachment (valid 15 minutes)',
  tag: 'Attachments',
  success: { status: 200, description: 'A presigned URL that downloads the file as an attachment.', mediaType: 'json' },
  errorStatuses: [404, 409],
  access: { tables: { inventory: 'read' }, attachmentObjects: 'get' },
} as const satisfies RouteDefinition;

export const deleteAttachmentRoute = {
  operationId: 'deleteAttachment',
  method: 'DELETE',
  path: '/v1/attachments/{id}',
  scope: 'attachments:write',
  submission: false,
  handler: 'functions/http/attachments/delete-attachment.ts',
  summary: 'Delete an attachment and its file',
  tag: 'Attachments',
  success: { status: 204, description: 'Deleted.', mediaType: 'none' },
  errorStatuses: [404],
  access: { tables: { inventory: 'read-write' }, attachmentObjects: 'delete' },
} as const satisfies RouteDefinition;

export const createAttachmentLinkRoute = {
  operationId: 'createAttachmentLink',
  method: 'POST',
  path: '/v1/attachments/links',
  scope: 'attachments:write',
  submission: false,
  handler: 'functions/http/attachments/create-attachment-link.ts',
  summary: 'Attach a link (an https URL the server never fetches)',
  tag: 'Attachments',
  requestBody: { mediaType: 'json' },
  success: { status: 201, description: 'The attachment.', mediaType: 'json' },
  errorStatuses: [400],
  access: { tables: { inventory: 'read-write' } },
} as const satisfies RouteDefinition;

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
  requestBody: { mediaType: 'json' },
  success: { status: 201, description: 'The BOM.', mediaType: 'json', headers: { Location: 'Relative URL of the BOM.', ETag: 'The version of the BOM; send it as `If-Match` with a `PUT`.' } },
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
  success: { status: 200, description: 'The BOM with its lines and current revision.', mediaType: 'json', headers: { ETag: 'The version of the BOM; send it as `If-Match` with a `PUT`.' } },
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
  requestBody: { mediaType: 'json' },
  success: { status: 200, description: 'The BOM as updated.', mediaType: 'json', headers: { ETag: 'The version of the BOM; send it as `If-Match` with a `PUT`.' } },
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

export const ROUTES = [
  renderBarcodeRoute,
  listEventsRoute,
  listAuditEventsRoute,
  listImportKindsRoute,
  submitImportJobRoute,
  getImportJobRoute,
  listImportRowErrorsRoute,
  listAttachmentsRoute,
  uploadAttachmentRoute,
  getAttachmentDownloadUrlRoute,
  deleteAttachmentRoute,
  createAttachmentLinkRoute,
  listBomsRoute,
  createBomRoute,
  getBomRoute,
  updateBomRoute,
  listBomBuildsRoute,
  listBomRevisionsRoute,
  compareBomRevisionsRoute,
  getBomRevisionRoute,
  listItemsRoute,
  getItemRoute,
  listLocationsRoute,
  getLocationRoute,
  listStockRecordsRoute,
  getStockRecordRoute,
  listMovementsRoute,
  getMovementRoute,
] as const satisfies readonly RouteDefinition[];

export type RouteId = (typeof ROUTES)[number]['operationId'];

/** Storage every route needs because of the shared chain (auth reads keys; rate limit counts). */
const CHAIN_ACCESS: ResourceAccess = { tables: { keys: 'read', 'rate-limits': 'read-write' } };

/** What every write route needs besides: idempotency records, the event sequence, the audit log. */
const WRITE_CHAIN_ACCESS: ResourceAccess = { tables: { idempotency: 'read-write', events: 'read-write', audit: 'write' } };

export function resourcesFor(route: RouteDefinition): ResourceAccess {
  const chainTables = route.method === 'GET' ? CHAIN_ACCESS.tables : { ...CHAIN_ACCESS.tables, ...WRITE_CHAIN_ACCESS.tables };
  return {
    ...route.access,
    tables: { ...chainTables, ...route.access.tables },
  };
}

export type RouteOf<Id extends RouteId> = Extract<(typeof ROUTES)[number], { operationId: Id }>;

export function routeById<Id extends RouteId>(operationId: Id): RouteOf<Id> {
  const route = ROUTES.find((candidate) => candidate.operationId === operationId);
  if (!route) throw new Error(`No route '${operationId}' in lib/routes.ts`);
  return route as RouteOf<Id>;
}
