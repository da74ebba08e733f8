import * as z from '../../platform/contracts/zod.ts';
import { defineOperation } from '../../platform/contracts/operation.ts';
import { idParam } from '../../platform/contracts/primitives.ts';
import { IDENTIFIER_PATTERN, IDENTIFIER_RULE } from '../../platform/core/identifiers.ts';
import { ITEM_MAX_LENGTHS, RECORD_STATUSES, TRACKING_MODES } from '../domain/item.ts';
import { LOCATION_MAX_LENGTHS, LOCATION_TYPES } from '../domain/location.ts';
import { QUANTITY_SCALE } from '../domain/stock.ts';
import { locationId } from './records.ts';

/**
 * Catalog writes over JSON (docs/inventory.md "Writing the catalog"): the bodies of `POST` and
 * `PATCH` of items and locations. Fields, lengths and values follow the `items` and `locations`
 * import kinds' columns (lib/imports/domain/items-kind.ts, locations-kind.ts): identifiers are never
 * trimmed, lengths are counted in characters, a name is not blank. A PATCH is a merge patch
 * (RFC 7396): a member sent changes its field, `null` clears it (to its default where it cannot
 * be null), a member not sent leaves it; unknown members are refused.
 */

const characters = (text: string) => [...text].length;

const identifier = (maxLength: number, description: string) =>
  z.string().check(
    z.minLength(1),
    z.refine((text) => characters(text) <= maxLength, { message: `At most ${maxLength} characters.` }),
    z.regex(IDENTIFIER_PATTERN, { message: IDENTIFIER_RULE }),
    z.describe(description),
  );

const text = (maxLength: number, description: string) =>
  z.string().check(
    z.refine((value) => characters(value) <= maxLength, { message: `At most ${maxLength} characters.` }),
    z.describe(description),
  );

const name = (maxLength: number, description: string) =>
  text(maxLength, description).check(z.refine((value) => value.trim() !== '', { message: 'Must not be empty or blank.' }));

const reorderPoint = z.number().check(
  z.minimum(0),
  z.refine((value) => Number(value.toFixed(QUANTITY_SCALE)) === value, { message: `At most ${QUANTITY_SCALE} decimals.` }),
  z.describe('On-hand quantity below which `low-stock` is emitted; `null`: no reorder point.'),
);

const clearable = <T extends z.ZodMiniType>(schema: T) => z.optional(z.nullable(schema));

const itemFields = () => ({
  unit: clearable(identifier(ITEM_MAX_LENGTHS.unit, 'Unit of measure, e.g. `ea`, `kg`, `l`; `null` or absent on create: `ea`.')),
  description: clearable(text(ITEM_MAX_LENGTHS.description, 'Free-text description; blank counts as `null`.')),
  category: clearable(text(ITEM_MAX_LENGTHS.category, 'Category; blank counts as `null`.')),
  barcode: clearable(identifier(ITEM_MAX_LENGTHS.barcode, 'Barcode value (e.g. a GTIN).')),
  reorderPoint: clearable(reorderPoint),
  trackingMode: clearable(
    z.enum(TRACKING_MODES).check(z.describe('`none` or `lot`; `null` or absent on create: `none`. Changes only while the item holds no stock.')),
  ),
});

const status = (what: string) =>
  z.optional(z.enum(RECORD_STATUSES).check(z.describe(`\`archived\`: the ${what} refuses stock in and leaves its list; \`active\` unarchives.`)));

export const createItemBody = /* @__PURE__ */ (() =>
  z.strictObject({
    sku: identifier(ITEM_MAX_LENGTHS.sku, 'Stock keeping unit: unique in the organization, case-sensitive.'),
    name: name(ITEM_MAX_LENGTHS.name, 'Item name.'),
    ...itemFields(),
  }))();

export const updateItemBody = /* @__PURE__ */ (() =>
  z.strictObject({
    sku: z.optional(identifier(ITEM_MAX_LENGTHS.sku, 'A new sku: the old one is freed, the new one claimed.')),
    name: z.optional(name(ITEM_MAX_LENGTHS.name, 'Item name.')),
    ...itemFields(),
    status: status('item'),
  }))();

const locationFields = () => ({
  type: clearable(z.enum(LOCATION_TYPES).check(z.describe('`warehouse`, `zone` or `bin`; `null` or absent on create: `bin`.'))),
  parentId: clearable(locationId.check(z.describe('The enclosing location by id; or give `parentCode`. `null`: no parent.'))),
  parentCode: clearable(identifier(LOCATION_MAX_LENGTHS.parentCode, 'The enclosing location by code; or give `parentId`. `null`: no parent.')),
});

/** At most one of `parentId` and `parentCode`. */
const oneParent = z.superRefine((body: Record<string, unknown>, context) => {
  if (body.parentId !== undefined && body.parentCode !== undefined)
    context.issues.push({ code: 'custom', input: body, path: ['parentCode'], message: 'Give parentId or parentCode, not both.' });
});

export const createLocationBody = /* @__PURE__ */ (() =>
  z
    .strictObject({
      code: identifier(LOCATION_MAX_LENGTHS.code, 'Location code: unique in the organization, case-sensitive.'),
      name: name(LOCATION_MAX_LENGTHS.name, 'Location name.'),
      ...locationFields(),
    })
    .check(oneParent))();

export const updateLocationBody = /* @__PURE__ */ (() =>
  z
    .strictObject({
      code: z.optional(identifier(LOCATION_MAX_LENGTHS.code, 'A new code: the old one is freed, the new one claimed.')),
      name: z.optional(name(LOCATION_MAX_LENGTHS.name, 'Location name.')),
      ...locationFields(),
      status: status('location'),
    })
    .check(oneParent))();

const recordPath = /* @__PURE__ */ (() => z.strictObject({ id: idParam }))();

const ifMatch = /* @__PURE__ */ (() =>
  z.object({
    'If-Match': z
      .optional(z.string().check(z.minLength(1), z.maxLength(1000)))
      .check(z.meta({ description: 'The `ETag` as read (`"<version>"`); when stale, 412 `customer-api.precondition-failed` and nothing is written.' })),
  }))();

export const createItemContract = defineOperation({ operationId: 'createItem', request: { body: createItemBody } });
export const updateItemContract = defineOperation({ operationId: 'updateItem', request: { path: recordPath, headers: ifMatch, body: updateItemBody } });
export const createLocationContract = defineOperation({ operationId: 'createLocation', request: { body: createLocationBody } });
export const updateLocationContract = defineOperation({
  operationId: 'updateLocation',
  request: { path: recordPath, headers: ifMatch, body: updateLocationBody },
});

export type CreateItemBody = z.infer<typeof createItemBody>;
export type UpdateItemBody = z.infer<typeof updateItemBody>;
export type CreateLocationBody = z.infer<typeof createLocationBody>;
export type UpdateLocationBody = z.infer<typeof updateLocationBody>;
