import type { InventoryClient } from '../create-client.ts';
import type { Item, ItemCreate, ItemPatch, Location, LocationCreate, LocationPatch } from '../types.ts';
import { unwrap } from '../unwrap.ts';

/**
 * Items and locations over JSON (docs/inventory.md "Writing the catalog"). An update sends a
 * merge patch: a member given changes its field, `null` clears it, a member left out stays.
 * `ifMatch` (an ETag such as `"3"`, or the record's `version`) makes the update apply only to
 * that version: a stale one is an ApiProblemError with code `customer-api.precondition-failed`
 * and the current `version` among its members.
 */

export interface CatalogWriteOptions {
  /** A key of your own, e.g. to make a resend after a crash replay the first request. */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

export interface CatalogUpdateOptions extends CatalogWriteOptions {
  ifMatch?: string | number;
}

/** The If-Match header of a version or an ETag. */
export const etagOf = (ifMatch: string | number): string => (typeof ifMatch === 'number' ? `"${ifMatch}"` : ifMatch);

function headers(options: CatalogUpdateOptions) {
  return {
    ...(options.idempotencyKey === undefined ? {} : { 'Idempotency-Key': options.idempotencyKey }),
    ...(options.ifMatch === undefined ? {} : { 'If-Match': etagOf(options.ifMatch) }),
  } as { 'Idempotency-Key': string; 'If-Match'?: string };
}

/** POST /v1/items: the item created (201). */
export function createItem(client: InventoryClient, body: ItemCreate, options: CatalogWriteOptions = {}): Promise<Item> {
  return unwrap(client.api.POST('/v1/items', { params: { header: headers(options) }, body, signal: options.signal }));
}

/** PATCH /v1/items/{id}: the item as it is now. */
export function updateItem(client: InventoryClient, id: string, patch: ItemPatch, options: CatalogUpdateOptions = {}): Promise<Item> {
  return unwrap(client.api.PATCH('/v1/items/{id}', { params: { path: { id }, header: headers(options) }, body: patch, signal: options.signal }));
}

/** POST /v1/locations: the location created (201). */
export function createLocation(client: InventoryClient, body: LocationCreate, options: CatalogWriteOptions = {}): Promise<Location> {
  return unwrap(client.api.POST('/v1/locations', { params: { header: headers(options) }, body, signal: options.signal }));
}

/** PATCH /v1/locations/{id}: the location as it is now. */
export function updateLocation(client: InventoryClient, id: string, patch: LocationPatch, options: CatalogUpdateOptions = {}): Promise<Location> {
  return unwrap(client.api.PATCH('/v1/locations/{id}', { params: { path: { id }, header: headers(options) }, body: patch, signal: options.signal }));
}
