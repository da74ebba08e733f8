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
    getItem: { contract: getItemContract, response: itemSchema },
    getItemAvailability: { contract: getItemAvailabilityContract, response: itemAvailabilitySchema },
    listLocations: { contract: listLocationsContract, response: locationsPageSchema },
    getLocation: { contract: getLocationContract, response: locationSchema },
    listStockRecords: { contract: listStockRecordsContract, response: stockRecordsPageSchema },
    getStockRecord: { contract: getStockRecordContract, response: stockRecordResponseSchema },
    listMovements: { contract: listMovementsContract, response: movementsPageSchema },
    getMovement: { contract: getMovementContract, response: movementResponseSchema },
    traceLot: { contract: traceLotContract, response: lotTraceSchema },
  },
  problemCodes: {
    traceLot: { 400: ['customer-api.lots.not-lot-tracked'], 404: ['customer-api.inventory.not-found'] },
  },
} satisfies OpenApiArea<typeof INVENTORY_ROUTES>;
