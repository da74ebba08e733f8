import type * as z from './zod.ts';
import { ROUTES, type RouteDefinition, type RouteId } from '../routes.ts';
import { createAttachmentLinkContract } from './attachments/create-attachment-link.ts';
import { deleteAttachmentContract } from './attachments/delete-attachment.ts';
import { getAttachmentDownloadUrlContract } from './attachments/get-attachment-download-url.ts';
import { listAttachmentsContract } from './attachments/list-attachments.ts';
import { attachmentSchema, attachmentsPageSchema, downloadUrlSchema } from './attachments/responses.ts';
import { uploadAttachmentContract } from './attachments/upload-attachment.ts';
import { listAuditEventsContract } from './audit.ts';
import { compareBomRevisionsContract } from './boms/compare-bom-revisions.ts';
import { createBomContract } from './boms/create-bom.ts';
import { getBomContract } from './boms/get-bom.ts';
import { getBomRevisionContract } from './boms/get-bom-revision.ts';
import { listBomBuildsContract } from './boms/list-bom-builds.ts';
import { listBomRevisionsContract } from './boms/list-bom-revisions.ts';
import { listBomsContract } from './boms/list-boms.ts';
import { bomCompareSchema, bomDetailSchema, bomRevisionDetailSchema, bomRevisionsPageSchema, bomSummariesPageSchema, buildsPageSchema } from './boms/responses.ts';
import { updateBomContract } from './boms/update-bom.ts';
import { auditEventsPageSchema } from './audit-events.ts';
import { eventsPageSchema } from './events.ts';
import { listEventsContract } from './feed.ts';
import { getImportJobContract } from './imports/get-import-job.ts';
import { listImportKindsContract } from './imports/list-import-kinds.ts';
import { listImportRowErrorsContract } from './imports/list-import-row-errors.ts';
import { importJobSchema, importKindsPageSchema, rowErrorsPageSchema } from './imports/responses.ts';
import { submitImportJobContract } from './imports/submit-import-job.ts';
import {
  getItemContract,
  getLocationContract,
  getMovementContract,
  getStockRecordContract,
  listItemsContract,
  listLocationsContract,
  listMovementsContract,
  listStockRecordsContract,
} from './inventory/operations.ts';
import { itemSchema, itemsPageSchema, locationSchema, locationsPageSchema, movementResponseSchema, movementsPageSchema, stockRecordResponseSchema, stockRecordsPageSchema } from './inventory/responses.ts';
import { renderBarcodeContract } from './labels.ts';
import { bindOperation, type OperationContract, type RouteOperation } from './operation.ts';

/** One route's request contract and the schema of its success body (`undefined`: not JSON). */
export interface OperationEntry<Id extends RouteId = RouteId> {
  contract: OperationContract<Id>;
  response: z.ZodType | undefined;
}

/**
 * Every route's operation, by operationId: for the OpenAPI generator and the tests only. A
 * function never imports this module (it would bundle every area's schemas); its handler imports
 * its own contract, and no response schema, since responses are not validated at run time. The
 * mapped type makes a route without an entry, or an entry without a route, a type error;
 * test/contract/operations.test.ts checks the same at run time.
 */
export const OPERATIONS: { readonly [Id in RouteId]: OperationEntry<Id> } = {
  // The body is the SVG image.
  renderBarcode: { contract: renderBarcodeContract, response: undefined },
  listEvents: { contract: listEventsContract, response: eventsPageSchema },
  listAuditEvents: { contract: listAuditEventsContract, response: auditEventsPageSchema },
  listImportKinds: { contract: listImportKindsContract, response: importKindsPageSchema },
  submitImportJob: { contract: submitImportJobContract, response: importJobSchema },
  getImportJob: { contract: getImportJobContract, response: importJobSchema },
  listImportRowErrors: { contract: listImportRowErrorsContract, response: rowErrorsPageSchema },
  listAttachments: { contract: listAttachmentsContract, response: attachmentsPageSchema },
  uploadAttachment: { contract: uploadAttachmentContract, response: attachmentSchema },
  getAttachmentDownloadUrl: { contract: getAttachmentDownloadUrlContract, response: downloadUrlSchema },
  // 204: no body.
  deleteAttachment: { contract: deleteAttachmentContract, response: undefined },
  createAttachmentLink: { contract: createAttachmentLinkContract, response: attachmentSchema },
  listBoms: { contract: listBomsContract, response: bomSummariesPageSchema },
  createBom: { contract: createBomContract, response: bomDetailSchema },
  getBom: { contract: getBomContract, response: bomDetailSchema },
  updateBom: { contract: updateBomContract, response: bomDetailSchema },
  listBomBuilds: { contract: listBomBuildsContract, response: buildsPageSchema },
  listBomRevisions: { contract: listBomRevisionsContract, response: bomRevisionsPageSchema },
  compareBomRevisions: { contract: compareBomRevisionsContract, response: bomCompareSchema },
  getBomRevision: { contract: getBomRevisionContract, response: bomRevisionDetailSchema },
  listItems: { contract: listItemsContract, response: itemsPageSchema },
  getItem: { contract: getItemContract, response: itemSchema },
  listLocations: { contract: listLocationsContract, response: locationsPageSchema },
  getLocation: { contract: getLocationContract, response: locationSchema },
  listStockRecords: { contract: listStockRecordsContract, response: stockRecordsPageSchema },
  getStockRecord: { contract: getStockRecordContract, response: stockRecordResponseSchema },
  listMovements: { contract: listMovementsContract, response: movementsPageSchema },
  getMovement: { contract: getMovementContract, response: movementResponseSchema },
};

/** The operation of `operationId`, for code that holds the id as a plain string. */
export function operationEntry(operationId: string): OperationEntry | undefined {
  return (OPERATIONS as Readonly<Record<string, OperationEntry>>)[operationId];
}

/** The routes of the table, each bound to its contract and response schema, in table order. */
export function routeOperations(routes: readonly RouteDefinition[] = ROUTES): RouteOperation[] {
  return routes.map((route) => {
    const entry = operationEntry(route.operationId);
    if (!entry) throw new Error(`${route.operationId}: no operation in lib/contracts/operations.ts`);
    return bindOperation(route, entry.contract, entry.response);
  });
}
