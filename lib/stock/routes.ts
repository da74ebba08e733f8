import type { RouteDefinition } from '../platform/contracts/route-types.ts';

/**
 * The Stock routes: stock writes over JSON and the changes they made (docs/inventory.md "Writing
 * stock over JSON"). A handler imports its own route from this file, never lib/app/routes.ts.
 */

export const adjustStockRoute = {
  operationId: 'adjustStock',
  method: 'POST',
  path: '/v1/stock/adjustments',
  scope: 'stock:write',
  submission: false,
  handler: 'functions/http/stock/adjust-stock.ts',
  summary: 'Adjust stock: 1 to 20 lines, all or none, each with compare-and-set',
  tag: 'Stock',
  requestBody: { mediaType: 'json' },
  success: { status: 201, description: 'The stock change, line by line.', mediaType: 'json', headers: { Location: 'Relative URL of the stock change.' } },
  errorStatuses: [400, 409],
  access: { tables: { inventory: 'read-write' } },
} as const satisfies RouteDefinition;

export const transferStockRoute = {
  operationId: 'transferStock',
  method: 'POST',
  path: '/v1/stock/transfers',
  scope: 'stock:write',
  submission: false,
  handler: 'functions/http/stock/transfer-stock.ts',
  summary: 'Transfer stock between locations: 1 to 20 lines, all or none, each with compare-and-set on its source',
  tag: 'Stock',
  requestBody: { mediaType: 'json' },
  success: { status: 201, description: 'The stock change, line by line.', mediaType: 'json', headers: { Location: 'Relative URL of the stock change.' } },
  errorStatuses: [400, 409],
  access: { tables: { inventory: 'read-write' } },
} as const satisfies RouteDefinition;

export const countStockRoute = {
  operationId: 'countStock',
  method: 'POST',
  path: '/v1/stock/counts',
  scope: 'stock:write',
  submission: false,
  handler: 'functions/http/stock/count-stock.ts',
  summary: 'Count stock at one location: 1 to 20 lines set on-hand, all or none, each with compare-and-set',
  tag: 'Stock',
  requestBody: { mediaType: 'json' },
  success: { status: 201, description: 'The stock change, line by line.', mediaType: 'json', headers: { Location: 'Relative URL of the stock change.' } },
  errorStatuses: [400, 409],
  access: { tables: { inventory: 'read-write' } },
} as const satisfies RouteDefinition;

export const receiveStockRoute = {
  operationId: 'receiveStock',
  method: 'POST',
  path: '/v1/stock/receipts',
  scope: 'stock:write',
  submission: false,
  handler: 'functions/http/stock/receive-stock.ts',
  summary: 'Receive the goods of a purchase order: 1 to 20 lines, all or none',
  tag: 'Stock',
  requestBody: { mediaType: 'json' },
  success: { status: 201, description: 'The stock change, line by line.', mediaType: 'json', headers: { Location: 'Relative URL of the stock change.' } },
  errorStatuses: [400, 409],
  access: { tables: { inventory: 'read-write' } },
} as const satisfies RouteDefinition;

export const getStockChangeRoute = {
  operationId: 'getStockChange',
  method: 'GET',
  path: '/v1/stock/changes/{id}',
  scope: 'inventory:read',
  submission: false,
  handler: 'functions/http/stock/get-stock-change.ts',
  summary: 'Read a stock change',
  tag: 'Stock',
  success: { status: 200, description: 'The stock change, as its request answered it.', mediaType: 'json' },
  errorStatuses: [404],
  access: { tables: { inventory: 'read' } },
} as const satisfies RouteDefinition;

export const STOCK_ROUTES = [adjustStockRoute, transferStockRoute, countStockRoute, receiveStockRoute, getStockChangeRoute] as const;
