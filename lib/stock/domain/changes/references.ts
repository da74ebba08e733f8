import { ValidationError, type FieldError } from '../../../platform/core/errors.ts';
import type { Item } from '../../../inventory/index.ts';
import type { Location } from '../../../inventory/index.ts';
import type { VersionedRecord } from '../../../inventory/index.ts';

/**
 * The items and locations the lines of a stock change name, each by its natural key (`sku`,
 * `…Code`) or its id, exactly one of the two (the contract checks that), as one batch read them;
 * every unknown one is answered at once, a pointer per field.
 */

export interface ReferenceMaps {
  itemsBySku: Map<string, Item>;
  itemsById: Map<string, Item>;
  locationsByCode: Map<string, Location>;
  locationsById: Map<string, Location>;
}

/** An item or a location as a line names it: by natural key or by id, and where in the body. */
export interface Reference {
  by: 'key' | 'id';
  value: string;
  pointer: string;
}

/** What a batch read needs for these references: natural keys and ids of items and locations. */
export function wantedReferences(items: Reference[], locations: Reference[]): { skus: string[]; itemIds: string[]; codes: string[]; locationIds: string[] } {
  const named = (references: Reference[], by: Reference['by']) => references.filter((candidate) => candidate.by === by).map((candidate) => candidate.value);
  return { skus: named(items, 'key'), itemIds: named(items, 'id'), codes: named(locations, 'key'), locationIds: named(locations, 'id') };
}

export interface ResolvedReferences {
  item(reference: Reference): Item;
  location(reference: Reference): Location;
}

export function resolveReferences(read: ReferenceMaps, items: Reference[], locations: Reference[]): ResolvedReferences {
  const { itemsBySku: bySku, itemsById: byItemId, locationsByCode: byCode, locationsById: byLocationId } = read;
  const errors: FieldError[] = [];
  const check = (references: Reference[], byKey: Map<string, unknown>, byId: Map<string, unknown>, what: string) => {
    for (const reference of references) {
      // A count's one location is named once for all its lines: one error for it.
      if ((reference.by === 'key' ? byKey : byId).has(reference.value) || errors.some((error) => error.pointer === reference.pointer)) continue;
      errors.push({ location: 'body', pointer: reference.pointer, code: `unknown-${what}`, message: `No ${what} '${reference.value}' in the organization.` });
    }
  };
  check(items, bySku, byItemId, 'item');
  check(locations, byCode, byLocationId, 'location');
  if (errors.length > 0) throw new ValidationError(errors, 'The change names items or locations that do not exist in the organization; see `errors`.');
  const found = <T>(byKey: Map<string, T>, byId: Map<string, T>, reference: Reference): T => {
    const record = (reference.by === 'key' ? byKey : byId).get(reference.value);
    if (record === undefined) throw new Error(`${reference.pointer} was not resolved`);
    return record;
  };
  return { item: (reference) => found(bySku, byItemId, reference), location: (reference) => found(byCode, byLocationId, reference) };
}

/** The records of a versioned read, by the map's own keys. */
export function recordsOf<T>(read: Map<string, VersionedRecord<T>>): Map<string, T> {
  return new Map([...read].map(([key, { record }]) => [key, record]));
}
