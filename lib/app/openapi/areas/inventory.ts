import type { INVENTORY_ROUTES } from '../../../inventory/routes.ts';
import {
  getItemAvailabilityContract,
  getItemContract,
  getLocationContract,
  getMovementContract,
  getStockRecordContract,
  listItemsContract,
  listLocationsContract,
  listMovementsContract,
  listStockRecordsContract,
} from '../../../inventory/contracts/operations.ts';
import { createItemContract, createLocationContract, updateItemContract, updateLocationContract } from '../../../inventory/contracts/catalog-writes.ts';
import {
  itemAvailabilitySchema,
  itemSchema,
  itemsPageSchema,
  locationSchema,
  locationsPageSchema,
  movementResponseSchema,
  movementsPageSchema,
  stockRecordResponseSchema,
  stockRecordsPageSchema,
} from '../../../inventory/contracts/responses.ts';
import { lotTraceSchema } from '../../../lots/contracts/responses.ts';
import { traceLotContract } from '../../../lots/contracts/trace-lot.ts';
import type { OpenApiArea } from './types.ts';

/** The inventory reads in the OpenAPI document (docs/inventory.md "Reading inventory"). */
export const inventoryOpenApi = {
  tag: {
    name: 'Inventory',
    description:
      'Inventory reads: items, locations, stock records and movements by id and by filter, the availability of an item by location and lot (docs/inventory.md "Reading inventory"); lot traces through builds (docs/inventory.md "Tracing a lot").',
  },
  operations: {
    listItems: { contract: listItemsContract, response: itemsPageSchema },
    createItem: { contract: createItemContract, response: itemSchema },
    getItem: { contract: getItemContract, response: itemSchema },
    updateItem: { contract: updateItemContract, response: itemSchema },
    getItemAvailability: { contract: getItemAvailabilityContract, response: itemAvailabilitySchema },
    listLocations: { contract: listLocationsContract, response: locationsPageSchema },
    createLocation: { contract: createLocationContract, response: locationSchema },
    getLocation: { contract: getLocationContract, response: locationSchema },
    updateLocation: { contract: updateLocationContract, response: locationSchema },
    listStockRecords: { contract: listStockRecordsContract, response: stockRecordsPageSchema },
    getStockRecord: { contract: getStockRecordContract, response: stockRecordResponseSchema },
    listMovements: { contract: listMovementsContract, response: movementsPageSchema },
    getMovement: { contract: getMovementContract, response: movementResponseSchema },
    traceLot: { contract: traceLotContract, response: lotTraceSchema },
  },
  problemCodes: {
    createItem: { 409: ['customer-api.inventory.sku-taken'] },
    updateItem: {
      409: ['customer-api.inventory.sku-taken', 'customer-api.inventory.tracking-change-with-stock'],
      412: ['customer-api.precondition-failed'],
    },
    createLocation: { 409: ['customer-api.inventory.code-taken'] },
    updateLocation: {
      409: ['customer-api.inventory.code-taken', 'customer-api.inventory.location-has-children'],
      412: ['customer-api.precondition-failed'],
    },
    traceLot: { 400: ['customer-api.lots.not-lot-tracked'], 404: ['customer-api.inventory.not-found'] },
  },
} satisfies OpenApiArea<typeof INVENTORY_ROUTES>;
