import * as z from '../../platform/contracts/zod.ts';
import { BOM_LIMITS } from '../../boms/index.ts';
import { BUILD_PHASES, BUILD_STATUSES, MAX_BUILD_SOURCE_LINES } from '../domain/build.ts';
import { STOCK_MAX_LENGTHS } from '../../stock/index.ts';
import { LOCATION_MAX_LENGTHS } from '../../inventory/index.ts';
import { itemId, locationId, prefixedId, utcTimestamp } from '../../inventory/index.ts';
import { exactlyOne, identifier, itemReference, locationReference, lotField, quantity } from '../../stock/index.ts';

/** Build jobs (docs/boms.md "Builds"): the submission's body and the build it answers with. */

const buildSourceInput = /* @__PURE__ */ (() =>
  z
    .strictObject({
      ...itemReference,
      lot: lotField,
      locationCode: z.optional(identifier(LOCATION_MAX_LENGTHS.code, 'Where the component is drawn from. Default: the build’s location.')),
    })
    .check(exactlyOne([['sku', 'itemId']])))();

export const submitBuildBody = /* @__PURE__ */ (() =>
  z
    .strictObject({
      buildReference: identifier(STOCK_MAX_LENGTHS.reference, 'Your reference of the build: a reference builds once, over JSON or by a `builds` import.'),
      bomId: z.optional(prefixedId('bom', 'BOM').check(z.describe('The BOM by id; or give `bomCode`. Its current revision is built.'))),
      bomCode: z.optional(identifier(BOM_LIMITS.code, 'The BOM by code; or give `bomId`.')),
      quantity: quantity('positive', 'Quantity of the BOM’s target produced, greater than 0.'),
      ...locationReference,
      outputLot: lotField,
      sources: z.optional(
        z
          .array(buildSourceInput)
          .check(
            z.maxLength(MAX_BUILD_SOURCE_LINES),
            z.describe(
              `Where components are drawn from, in order (at most ${MAX_BUILD_SOURCE_LINES}); a component not named here is drawn at the build’s location: without a lot, or its oldest lots first.`,
            ),
          ),
      ),
    })
    .check(
      exactlyOne([
        ['bomCode', 'bomId'],
        ['locationCode', 'locationId'],
      ]),
    ))();

const shortLineSchema = z.object({
  line: z.number().check(z.int(), z.describe('Index of the BOM line in the revision’s lines.')),
  itemId,
  sku: z.string(),
  needed: z.number(),
  available: z.number(),
});

export const buildSchema = /* @__PURE__ */ (() =>
  z
    .object({
      id: prefixedId('bld', 'build'),
      buildReference: z.string(),
      bomId: prefixedId('bom', 'BOM'),
      revision: z.object({ id: z.string(), number: z.number().check(z.int()) }),
      quantity: z.number(),
      locationId,
      outputLot: z.nullable(z.string()),
      status: z.enum(BUILD_STATUSES),
      phase: z.enum(BUILD_PHASES).check(z.describe('The step the build runs next (`done` once it ended).')),
      failure: z.nullable(z.object({ code: z.string(), message: z.string(), lines: z.array(shortLineSchema) })),
      submittedAt: utcTimestamp('When it was submitted.'),
      updatedAt: utcTimestamp('When its last step committed.'),
      completedAt: z.nullable(utcTimestamp('When it succeeded or failed.')),
    })
    .check(z.meta({ description: 'A build job: queued, running, then succeeded or failed.' })))();
