/**
 * The door of the inventory area: what another area's domain, contracts and routes may import of
 * it, nothing more (docs/architecture.md "Areas and their doors").
 */
export {
  MOVEMENT_TYPES,
  itemId,
  itemRecordSchema,
  locationId,
  lot,
  movementId,
  movementSchema,
  onHandQuantity,
  open,
  prefixedId,
  sku,
  stockPlaceFields,
  stockRecordId,
  utcTimestamp,
  utcTimestampSchema,
} from './contracts/records.ts';
export {
  ARCHIVED_CODES,
  ArchivedError,
  archivedMessage,
  archivedOf,
  ITEM_UPDATABLE_FIELDS,
  LOCATION_CHANGEABLE_FIELDS,
  applyFields,
  changeItem,
  changeLocation,
  changesStockRules,
  newItem,
  newLocation,
} from './domain/catalog.ts';
export type { CatalogDecision, ItemChanges, ItemFields, LocationChanges, LocationFields } from './domain/catalog.ts';
export { Hierarchy } from './domain/hierarchy.ts';
export { ITEM_CHANGEABLE_FIELDS, ITEM_DEFAULT_TRACKING_MODE, ITEM_DEFAULT_UNIT, ITEM_MAX_LENGTHS, RECORD_STATUSES, TRACKING_MODES } from './domain/item.ts';
export type { Item, RecordStatus, TrackingMode } from './domain/item.ts';
export { LOCATION_DEFAULT_TYPE, LOCATION_MAX_LENGTHS, LOCATION_TYPES } from './domain/location.ts';
export type { Location, LocationType } from './domain/location.ts';
export type { InventoryReadStorage } from './domain/reads.ts';
export { INVENTORY_RECORD_TYPES, NaturalKeyTakenError, STORED_ENTRIES_PER_WRITE, naturalKeyOf, newRecordId } from './domain/records.ts';
export type { InventoryRecordType, InventoryRecordTypes, InventoryRecords, VersionedRecord } from './domain/records.ts';
export { QUANTITY_SCALE, availableOf, isMovementTime, newMovementId, reservedOf, scaleQuantity, stockRecordKey, sumQuantities } from './domain/stock.ts';
export type { ItemAtLocation, ItemStock, MovementLeg, MovementRecord, MovementType, StockRecord } from './domain/stock.ts';
