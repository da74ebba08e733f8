import * as z from '../../platform/contracts/zod.ts';
import { BOM_STATUSES } from '../domain/bom.ts';

/**
 * The success bodies of the BOM operations (docs/boms.md), for OpenAPI and the tests
 * (lib/app/openapi/areas/boms.ts); no function imports them.
 */

const revisionRef = z.object({ id: z.string(), number: z.number().check(z.int()) });
const counts = z.object({ added: z.number().check(z.int()), removed: z.number().check(z.int()), changed: z.number().check(z.int()) });

export const bomLineSchema = z
  .object({
    lineId: z.string().check(z.meta({ description: 'Stable across revisions for the same item.' })),
    itemId: z.string(),
    quantity: z.number(),
    unit: z.nullable(z.string()),
    scrapPercent: z.number(),
    notes: z.nullable(z.string()),
  })
  .check(z.meta({ id: 'BomLine' }));

const contentShape = {
  name: z.string(),
  targetItemId: z.string(),
  status: z.enum(BOM_STATUSES),
  outputQuantity: z.number(),
  unit: z.nullable(z.string()),
  notes: z.nullable(z.string()),
  lines: z.array(bomLineSchema),
};

export const bomDetailSchema = z
  .object({
    id: z.string(),
    code: z.string(),
    ...contentShape,
    archived: z.boolean(),
    revision: revisionRef,
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .check(z.meta({ id: 'BomDetail' }));

export const bomSummarySchema = z
  .object({
    id: z.string(),
    code: z.string(),
    name: z.string(),
    targetItemId: z.string(),
    status: z.enum(BOM_STATUSES),
    archived: z.boolean(),
    revision: revisionRef,
    lineCount: z.number().check(z.int()),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .check(z.meta({ id: 'BomSummary' }));

const page = { page: z.object({ nextCursor: z.nullable(z.string()) }) };

export const bomSummariesPageSchema = z.object({ data: z.array(bomSummarySchema), ...page }).check(z.meta({ id: 'BomSummariesPage' }));

export const bomRevisionSummarySchema = z
  .object({
    id: z.string(),
    number: z.number().check(z.int()),
    createdAt: z.string(),
    createdBy: z.string().check(z.meta({ description: 'The API key id that made the change.' })),
    summary: counts,
  })
  .check(z.meta({ id: 'BomRevisionSummary' }));

export const bomRevisionsPageSchema = z.object({ data: z.array(bomRevisionSummarySchema), ...page }).check(z.meta({ id: 'BomRevisionsPage' }));

export const bomRevisionDetailSchema = z
  .object({
    id: z.string(),
    bomId: z.string(),
    number: z.number().check(z.int()),
    createdAt: z.string(),
    createdBy: z.string(),
    summary: counts,
    ...contentShape,
  })
  .check(z.meta({ id: 'BomRevisionDetail' }));

const fieldChange = z.object({ field: z.string(), from: z.unknown(), to: z.unknown() });

export const bomCompareSchema = z
  .object({
    bomId: z.string(),
    from: revisionRef,
    to: revisionRef,
    fields: z.array(fieldChange),
    components: z.object({
      added: z.array(bomLineSchema),
      removed: z.array(bomLineSchema),
      changed: z.array(z.object({ itemId: z.string(), changes: z.array(fieldChange), quantityDelta: z.number() })),
    }),
    summary: z.object({
      added: z.number().check(z.int()),
      removed: z.number().check(z.int()),
      changed: z.number().check(z.int()),
      unchanged: z.number().check(z.int()),
    }),
  })
  .check(z.meta({ id: 'BomRevisionComparison' }));

export const buildProvenanceSchema = z
  .object({
    id: z.string(),
    bomId: z.string(),
    revision: revisionRef,
    reference: z.string(),
    quantity: z.number(),
    outputItemId: z.string(),
    outputStockRecordId: z.string(),
    locationId: z.string(),
    consumed: z.array(z.object({ sourceStockRecordId: z.string(), itemId: z.string(), quantity: z.number(), lot: z.nullable(z.string()) })),
    builtAt: z.string(),
  })
  .check(z.meta({ id: 'BuildProvenance' }));

export const buildsPageSchema = z.object({ data: z.array(buildProvenanceSchema), ...page }).check(z.meta({ id: 'BuildProvenancePage' }));
