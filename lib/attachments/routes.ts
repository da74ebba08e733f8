import { ATTACHMENT_MAX_BYTES } from './domain/attachment.ts';
import type { RouteDefinition } from '../platform/contracts/route-types.ts';

/**
 * The Attachments routes (files and links attached to records). A handler imports its own route
 * from this file, never lib/app/routes.ts, so its bundle carries one route, not the table.
 */

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

/** The area's routes in table order; lib/app/routes.ts registers them. */
export const ATTACHMENT_ROUTES = [
  listAttachmentsRoute,
  uploadAttachmentRoute,
  getAttachmentDownloadUrlRoute,
  deleteAttachmentRoute,
  createAttachmentLinkRoute,
] as const satisfies readonly RouteDefinition[];
