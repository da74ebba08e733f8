import { ROUTES, type RouteDefinition, type RouteId } from '../routes.ts';
import { listAuditEventsContract } from './audit.ts';
import { listEventsContract } from './feed.ts';
import { getImportJobContract } from './imports/get-import-job.ts';
import { listImportKindsContract } from './imports/list-import-kinds.ts';
import { listImportRowErrorsContract } from './imports/list-import-row-errors.ts';
import { submitImportJobContract } from './imports/submit-import-job.ts';
import { renderBarcodeContract } from './labels.ts';
import { bindOperation, type OperationContract, type RouteOperation } from './operation.ts';

/**
 * Every route's operation contract, by operationId: for the OpenAPI generator and the tests only.
 * A function never imports this module (it would bundle every area's schemas); its handler
 * imports its own contract. The mapped type makes a route without a contract, or a contract
 * without a route, a type error; test/contract/operations.test.ts checks the same at run time.
 */
export const OPERATION_CONTRACTS: { readonly [Id in RouteId]: OperationContract<Id> } = {
  renderBarcode: renderBarcodeContract,
  listEvents: listEventsContract,
  listAuditEvents: listAuditEventsContract,
  listImportKinds: listImportKindsContract,
  submitImportJob: submitImportJobContract,
  getImportJob: getImportJobContract,
  listImportRowErrors: listImportRowErrorsContract,
};

/** The routes of the table, each bound to its contract, in table order. */
export function routeOperations(routes: readonly RouteDefinition[] = ROUTES): RouteOperation[] {
  return routes.map((route) => {
    const contract: OperationContract | undefined = (OPERATION_CONTRACTS as Readonly<Record<string, OperationContract>>)[route.operationId];
    if (!contract) throw new Error(`${route.operationId}: no operation contract in lib/contracts/operations.ts`);
    return bindOperation(route, contract);
  });
}
