import type { Scope } from '../auth/scopes.ts';
import type { QueueId, TableId } from '../storage/tables.ts';

/**
 * The shape of a route of the table (lib/app/routes.ts) and of the storage a function may reach.
 * Metadata only: no zod schema, no parser, no store code (a type import of the table ids at most).
 */

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
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
  /**
   * Webhook signing secrets: `seal-and-open` (create, rotate: KMS GenerateDataKey to seal, Decrypt
   * to open the sealed response a replay of the request answers with), `open` (the delivery
   * worker: KMS Decrypt).
   */
  webhookSecrets?: 'seal-and-open' | 'open';
  /**
   * Queues of QUEUES (lib/platform/storage/tables.ts) a function sends to (`send`: it gets the queue's URL in
   * `spec.envVar`) or whose dead letters it settles (`send-and-settle-dead-letters`: also the DLQ's
   * URL, the sweeper). The import queue keeps its own fields above.
   */
  queues?: Partial<Record<QueueId, 'send' | 'send-and-settle-dead-letters'>>;
  /** Export files, under the exports prefix of the files bucket only: `get` (signs download URLs), `write` (the worker's multipart upload and its read-back). */
  exportObjects?: 'get' | 'write';
}

export interface ResponseSpec {
  description: string;
  /** Media type of a success body; JSON routes are negotiated among the JSON types. */
  mediaType?: 'json' | 'image/svg+xml' | 'none';
  headers?: Record<string, string>;
}

/** Limits of a multipart/form-data body; lib/platform/http/multipart.ts enforces them. */
export interface MultipartLimits {
  /** Bytes per file; one more is a 413. */
  maxFileBytes: number;
  maxFiles: number;
  maxFields: number;
  maxFieldBytes: number;
}

/** How a route's request body is sent; its schema is the contract's `request.body`. */
/** `optional`: a request may come without a body (none, or empty), validated as `undefined`. */
/**
 * `maxBytes`: the largest JSON body the route takes, when its content may need more than the
 * default (`JSON_BODY_MAX_BYTES`, lib/platform/http/middleware/validate-request.ts); one more is a 413.
 */
export type RequestBodySpec = { mediaType: 'json'; optional?: boolean; maxBytes?: number } | { mediaType: 'multipart'; limits: MultipartLimits };

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
