import type { RouteDefinition } from '../platform/contracts/route-types.ts';

/** The inventory reads (docs/inventory.md "Reading inventory"): metadata only, as every route of lib/<area>/routes.ts. */

export const listItemsRoute = {
  operationId: 'listItems',
  method: 'GET',
  path: '/v1/items',
  scope: 'inventory:read',
  submission: false,
  handler: 'functions/http/inventory/list-items.ts',
  summary: 'List items, by sku',
  tag: 'Inventory',
  success: {
    status: 200,
    description: 'A page of items by sku, each with its totals across all its locations; a page filtered by `q` may hold fewer than `limit`.',
    mediaType: 'json',
  },
  errorStatuses: [400],
  access: { tables: { inventory: 'read' }, cursorSecret: true },
} as const satisfies RouteDefinition;

export const getItemRoute = {
  operationId: 'getItem',
  method: 'GET',
  path: '/v1/items/{id}',
  scope: 'inventory:read',
  submission: false,
  handler: 'functions/http/inventory/get-item.ts',
  summary: 'Read an item',
  tag: 'Inventory',
  success: {
    status: 200,
    description: 'The item, with its totals across all its locations (`onHand`, `reserved`, `available`); archived items too.',
    mediaType: 'json',
    headers: { ETag: 'The version of the item (`"<version>"`); send it as `If-Match` with a `PATCH`.' },
  },
  errorStatuses: [404],
  access: { tables: { inventory: 'read' } },
} as const satisfies RouteDefinition;

export const getItemAvailabilityRoute = {
  operationId: 'getItemAvailability',
  method: 'GET',
  path: '/v1/items/{id}/availability',
  scope: 'inventory:read',
  submission: false,
  handler: 'functions/http/inventory/get-item-availability.ts',
  summary: "An item's on-hand, reserved and available quantities: its totals, and by location and lot",
  tag: 'Inventory',
  success: {
    status: 200,
    description:
      "The item's totals and its stock records by location and lot: up to 1000 records, in whole locations (`truncated` and `nextAfterLocationId` say where to go on).",
    mediaType: 'json',
  },
  errorStatuses: [400, 404],
  access: { tables: { inventory: 'read' } },
} as const satisfies RouteDefinition;

export const listLocationsRoute = {
  operationId: 'listLocations',
  method: 'GET',
  path: '/v1/locations',
  scope: 'inventory:read',
  submission: false,
  handler: 'functions/http/inventory/list-locations.ts',
  summary: 'List locations, by code, or the children of one',
  tag: 'Inventory',
  success: { status: 200, description: 'A page of locations by code.', mediaType: 'json' },
  errorStatuses: [400],
  access: { tables: { inventory: 'read' }, cursorSecret: true },
} as const satisfies RouteDefinition;

export const getLocationRoute = {
  operationId: 'getLocation',
  method: 'GET',
  path: '/v1/locations/{id}',
  scope: 'inventory:read',
  submission: false,
  handler: 'functions/http/inventory/get-location.ts',
  summary: 'Read a location',
  tag: 'Inventory',
  success: {
    status: 200,
    description: 'The location; archived locations too.',
    mediaType: 'json',
    headers: { ETag: 'The version of the location (`"<version>"`); send it as `If-Match` with a `PATCH`.' },
  },
  errorStatuses: [404],
  access: { tables: { inventory: 'read' } },
} as const satisfies RouteDefinition;

export const listStockRecordsRoute = {
  operationId: 'listStockRecords',
  method: 'GET',
  path: '/v1/stock-records',
  scope: 'inventory:read',
  submission: false,
  handler: 'functions/http/inventory/list-stock-records.ts',
  summary: 'List stock records (on-hand, reserved and available per item, location and lot)',
  tag: 'Inventory',
  success: { status: 200, description: 'A page of stock records; a page filtered by `lot` or `nonZero` may hold fewer than `limit`.', mediaType: 'json' },
  errorStatuses: [400],
  access: { tables: { inventory: 'read' }, cursorSecret: true },
} as const satisfies RouteDefinition;

export const getStockRecordRoute = {
  operationId: 'getStockRecord',
  method: 'GET',
  path: '/v1/stock-records/{id}',
  scope: 'inventory:read',
  submission: false,
  handler: 'functions/http/inventory/get-stock-record.ts',
  summary: 'Read a stock record',
  tag: 'Inventory',
  success: { status: 200, description: 'The stock record.', mediaType: 'json' },
  errorStatuses: [404],
  access: { tables: { inventory: 'read' } },
} as const satisfies RouteDefinition;

export const listMovementsRoute = {
  operationId: 'listMovements',
  method: 'GET',
  path: '/v1/movements',
  scope: 'inventory:read',
  submission: false,
  handler: 'functions/http/inventory/list-movements.ts',
  summary: 'List movements, newest first',
  tag: 'Inventory',
  success: {
    status: 200,
    description: 'A page of movements, newest first; a page filtered by item, location or type may hold fewer than `limit`.',
    mediaType: 'json',
  },
  errorStatuses: [400],
  access: { tables: { inventory: 'read' }, cursorSecret: true },
} as const satisfies RouteDefinition;

export const getMovementRoute = {
  operationId: 'getMovement',
  method: 'GET',
  path: '/v1/movements/{id}',
  scope: 'inventory:read',
  submission: false,
  handler: 'functions/http/inventory/get-movement.ts',
  summary: 'Read a movement',
  tag: 'Inventory',
  success: { status: 200, description: 'The movement.', mediaType: 'json' },
  errorStatuses: [404],
  access: { tables: { inventory: 'read' } },
} as const satisfies RouteDefinition;

export const traceLotRoute = {
  operationId: 'traceLot',
  method: 'GET',
  path: '/v1/lots/trace',
  scope: 'inventory:read',
  submission: false,
  handler: 'functions/http/inventory/trace-lot.ts',
  summary: 'Trace a lot through builds: forward to the lots made from it, backward to the lots it was made from',
  tag: 'Inventory',
  success: {
    status: 200,
    description:
      'The tree of builds from the lot, up to `depth` levels and 1000 nodes (`truncated` and the `continuation`s say how to read the rest). Builds are traceable moments after they commit.',
    mediaType: 'json',
  },
  errorStatuses: [400, 404],
  access: { tables: { inventory: 'read' }, cursorSecret: true },
} as const satisfies RouteDefinition;

/** Catalog writes over JSON (docs/inventory.md "Writing the catalog"). */

export const createItemRoute = {
  operationId: 'createItem',
  method: 'POST',
  path: '/v1/items',
  scope: 'inventory:write',
  submission: false,
  handler: 'functions/http/inventory/create-item.ts',
  summary: 'Create an item, with the items import kind’s rules and defaults',
  tag: 'Inventory',
  requestBody: { mediaType: 'json' },
  success: {
    status: 201,
    description: 'The item created, with its totals (all 0).',
    mediaType: 'json',
    headers: { Location: 'Relative URL of the item.', ETag: 'The version of the item (`"<version>"`); send it as `If-Match` with a `PATCH`.' },
  },
  errorStatuses: [400, 409],
  access: { tables: { inventory: 'read-write' } },
} as const satisfies RouteDefinition;

export const updateItemRoute = {
  operationId: 'updateItem',
  method: 'PATCH',
  path: '/v1/items/{id}',
  scope: 'inventory:write',
  submission: false,
  handler: 'functions/http/inventory/update-item.ts',
  summary: 'Change an item (merge patch): fields, sku, tracking mode, archive',
  tag: 'Inventory',
  requestBody: { mediaType: 'json' },
  success: {
    status: 200,
    description: 'The item as it is now (unchanged when the patch changes nothing).',
    mediaType: 'json',
    headers: { ETag: 'The version of the item (`"<version>"`); send it as `If-Match` with a `PATCH`.' },
  },
  errorStatuses: [400, 404, 409, 412],
  access: { tables: { inventory: 'read-write' } },
} as const satisfies RouteDefinition;

export const createLocationRoute = {
  operationId: 'createLocation',
  method: 'POST',
  path: '/v1/locations',
  scope: 'inventory:write',
  submission: false,
  handler: 'functions/http/inventory/create-location.ts',
  summary: 'Create a location, with the locations import kind’s rules and defaults',
  tag: 'Inventory',
  requestBody: { mediaType: 'json' },
  success: {
    status: 201,
    description: 'The location created.',
    mediaType: 'json',
    headers: { Location: 'Relative URL of the location.', ETag: 'The version of the location (`"<version>"`); send it as `If-Match` with a `PATCH`.' },
  },
  errorStatuses: [400, 409],
  access: { tables: { inventory: 'read-write' } },
} as const satisfies RouteDefinition;

export const updateLocationRoute = {
  operationId: 'updateLocation',
  method: 'PATCH',
  path: '/v1/locations/{id}',
  scope: 'inventory:write',
  submission: false,
  handler: 'functions/http/inventory/update-location.ts',
  summary: 'Change a location (merge patch): fields, code, parent, archive',
  tag: 'Inventory',
  requestBody: { mediaType: 'json' },
  success: {
    status: 200,
    description: 'The location as it is now (unchanged when the patch changes nothing).',
    mediaType: 'json',
    headers: { ETag: 'The version of the location (`"<version>"`); send it as `If-Match` with a `PATCH`.' },
  },
  errorStatuses: [400, 404, 409, 412],
  access: { tables: { inventory: 'read-write' } },
} as const satisfies RouteDefinition;

export const INVENTORY_ROUTES = [
  listItemsRoute,
  createItemRoute,
  getItemRoute,
  updateItemRoute,
  getItemAvailabilityRoute,
  listLocationsRoute,
  createLocationRoute,
  getLocationRoute,
  updateLocationRoute,
  listStockRecordsRoute,
  getStockRecordRoute,
  listMovementsRoute,
  getMovementRoute,
  traceLotRoute,
] as const;
