/**
 * The typed client of the customer API (docs/client.md). Runs wherever fetch does; the
 * Node-only parts (the file checkpoint store, files from disk) are in client/node.ts.
 */
export { createInventoryClient, type InventoryClient, type InventoryClientOptions } from './create-client.ts';
export { unwrap, unwrapResponse, type SuccessData } from './unwrap.ts';
export { ApiProblemError, UNEXPECTED_RESPONSE_CODE, type ProblemFieldError } from './errors/api-problem-error.ts';
export { ApiNetworkError } from './errors/network-error.ts';
export { CURSOR_EXPIRED_CODE, CursorExpiredError } from './errors/cursor-expired-error.ts';
export { RepeatedCursorError } from './errors/repeated-cursor-error.ts';
export { DEFAULT_RETRY_OPTIONS, IN_PROGRESS_CODE, type RetryOptions, type RetryReason } from './http/retry-policy.ts';
export type { RetryEvent } from './http/retrying-fetch.ts';
export { formBody } from './http/form-body.ts';
export { paginate, type ListPage } from './pagination/paginate.ts';
export { submitImport, type ImportSubmission } from './imports/submit-import.ts';
export { isFinished, waitForImport, type ImportProgress, type WaitOptions } from './imports/wait-for-import.ts';
export { rowErrorsOf } from './imports/row-errors.ts';
export { importFile, type ImportResult } from './imports/import-file.ts';
export { isBuildFinished, submitBuild, waitForBuild, type BuildSubmitOptions, type BuildWaitOptions } from './builds/submit-build.ts';
export { exportDownloadUrl, submitExport, waitForExport, type ExportRequest, type ExportWaitOptions } from './exports/submit-export.ts';
export { MemoryCheckpointStore, type CheckpointStore } from './feed/checkpoint-store.ts';
export { feedPages, type FeedOptions, type FeedPage } from './feed/feed-pages.ts';
export { consumeFeed } from './feed/consume-feed.ts';
export { renderBarcode, type BarcodeRequest } from './barcodes/render-barcode.ts';
export {
  createItem,
  createLocation,
  etagOf,
  updateItem,
  updateLocation,
  type CatalogUpdateOptions,
  type CatalogWriteOptions,
} from './catalog/catalog-writes.ts';
export { traceLot, traceLotAll, type LotTraceRequest } from './lots/trace-lot.ts';
export type * from './types.ts';
