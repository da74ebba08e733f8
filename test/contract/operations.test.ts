import { describe, expect, it } from 'vitest';
import { bindOperation } from '../../lib/platform/contracts/operation.ts';
import { OPENAPI_AREAS } from '../../lib/app/openapi/areas/index.ts';
import { OPERATIONS, routeOperations, type OperationEntry } from '../../lib/app/operations.ts';
import { ROUTES } from '../../lib/app/routes.ts';
import type { RouteDefinition } from '../../lib/platform/contracts/route-types.ts';

const entries = Object.entries(OPERATIONS as Readonly<Record<string, OperationEntry>>);
const routes: readonly RouteDefinition[] = ROUTES;

describe('operation contracts (lib/app/operations.ts)', () => {
  it('has exactly one contract per route of the table, and none without a route', () => {
    expect(entries.map(([operationId]) => operationId).sort()).toEqual(routes.map((route) => route.operationId).sort());
  });

  it('files each contract under its own operationId', () => {
    for (const [operationId, { contract }] of entries) expect(contract.operationId, operationId).toBe(operationId);
  });

  it('binds every route to its contract (body, response, path parameters agree)', () => {
    expect(routeOperations().map(({ route, contract }) => [route.operationId, contract.operationId])).toEqual(
      routes.map((route) => [route.operationId, route.operationId]),
    );
  });
});

describe('OpenAPI area parts (lib/app/openapi/areas/)', () => {
  it('has exactly one part per tag of the route table, in table order', () => {
    // Prepare
    const tagsInTableOrder = [...new Set(routes.map((route) => route.tag))];

    // Act
    const partTags = OPENAPI_AREAS.map((area) => area.tag.name);

    // Assess
    expect(partTags).toEqual(tagsInTableOrder);
  });

  it('holds in each part only the operations of routes with its tag', () => {
    for (const area of OPENAPI_AREAS) {
      const tagsOfItsRoutes = Object.keys(area.operations).map((operationId) => routes.find((route) => route.operationId === operationId)?.tag);
      expect(new Set(tagsOfItsRoutes), area.tag.name).toEqual(new Set([area.tag.name]));
    }
  });
});

describe('bindOperation', () => {
  const route = routes.find((candidate) => candidate.operationId === 'getImportJob');
  if (!route) throw new Error('getImportJob missing');
  const { contract } = OPERATIONS.getImportJob;

  it('refuses the contract of another route', () => {
    expect(() => bindOperation(route, OPERATIONS.listEvents.contract)).toThrow(/contract of 'listEvents'/);
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
    expect(() => bindOperation(barcodes, OPERATIONS.renderBarcode.contract, OPERATIONS.getImportJob.response)).toThrow(/JSON success/);
  });
});
