import * as z from '../zod.ts';
import { itemRecordSchema, locationRecordSchema, movementRecordSchema, stockRecordSchema } from './records.ts';

/**
 * The success bodies of the inventory reads, for OpenAPI and the tests
 * (lib/contracts/operations.ts); no function imports them. The records are the schemas the
 * events share (records.ts), published under their own names.
 */

export const itemSchema = itemRecordSchema.check(z.meta({ id: 'Item' }));
export const locationSchema = locationRecordSchema.check(z.meta({ id: 'Location' }));
export const stockRecordResponseSchema = stockRecordSchema.check(z.meta({ id: 'StockRecord' }));
export const movementResponseSchema = movementRecordSchema.check(z.meta({ id: 'Movement' }));

const page = { page: z.object({ nextCursor: z.nullable(z.string()) }) };

export const itemsPageSchema = z.object({ data: z.array(itemSchema), ...page }).check(z.meta({ id: 'ItemsPage' }));
export const locationsPageSchema = z.object({ data: z.array(locationSchema), ...page }).check(z.meta({ id: 'LocationsPage' }));
export const stockRecordsPageSchema = z.object({ data: z.array(stockRecordResponseSchema), ...page }).check(z.meta({ id: 'StockRecordsPage' }));
export const movementsPageSchema = z.object({ data: z.array(movementResponseSchema), ...page }).check(z.meta({ id: 'MovementsPage' }));
