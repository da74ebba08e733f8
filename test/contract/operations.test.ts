import { describe, expect, it } from 'vitest';
import { bindOperation, type OperationContract } from '../../lib/contracts/operation.ts';
import { OPERATION_CONTRACTS, routeOperations } from '../../lib/contracts/operations.ts';
import { ROUTES, type RouteDefinition } from '../../lib/routes.ts';

const contracts = Object.entries(OPERATION_CONTRACTS as Readonly<Record<string, OperationContract>>);
const routes: readonly RouteDefinition[] = ROUTES;

describe('operation contracts (lib/contracts/operations.ts)', () => {
  it('has exactly one contract per route of the table, and none without a route', () => {
    expect(contracts.map(([operationId]) => operationId).sort()).toEqual(routes.map((route) => route.operationId).sort());
  });

  it('files each contract under its own operationId', () => {
    for (const [operationId, contract] of contracts) expect(contract.operationId, operationId).toBe(operationId);
  });

  it('binds every route to its contract (body, response, path parameters agree)', () => {
    expect(routeOperations().map(({ route, contract }) => [route.operationId, contract.operationId])).toEqual(
      routes.map((route) => [route.operationId, route.operationId]),
    );
  });
});

describe('bindOperation', () => {
  const route = routes.find((candidate) => candidate.operationId === 'getImportJob');
  if (!route) throw new Error('getImportJob missing');
  const contract = OPERATION_CONTRACTS.getImportJob;

  it('refuses the contract of another route', () => {
    expect(() => bindOperation(route, OPERATION_CONTRACTS.listEvents)).toThrow(/contract of 'listEvents'/);
  });

  it('refuses a body schema on a route without requestBody', () => {
    expect(() => bindOperation(route, { ...contract, request: { ...contract.request, body: contract.request.path } })).toThrow(/requestBody/);
  });

  it('refuses path parameters the template does not have', () => {
    expect(() => bindOperation(route, { ...contract, request: {} })).toThrow(/disagree/);
  });

  it('refuses a response schema on a route whose success is not JSON', () => {
    const barcodes = routes.find((candidate) => candidate.operationId === 'renderBarcode');
    if (!barcodes) throw new Error('renderBarcode missing');
    expect(() => bindOperation(barcodes, { ...OPERATION_CONTRACTS.renderBarcode, response: contract.response })).toThrow(/JSON success/);
  });
});
