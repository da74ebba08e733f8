import * as z from '../../platform/contracts/zod.ts';
import { BOM_LIMITS, BOM_STATUSES, hasAllowedDecimals } from '../domain/bom.ts';
import { IDENTIFIER_PATTERN, IDENTIFIER_RULE } from '../../platform/core/identifiers.ts';
import { idParam } from '../../platform/contracts/primitives.ts';

/**
 * Request schemas shared by the BOM operations (docs/boms.md); each operation's own contract is
 * in lib/boms/contracts/<operation>.ts, the response bodies in lib/boms/contracts/responses.ts.
 * The bodies are built in `@__PURE__` calls so that the read functions, which import the paths
 * only, do not bundle them (lib/platform/contracts/zod.ts).
 */

export const bomPath = /* @__PURE__ */ z.strictObject({ id: idParam });
export const bomRevisionPath = /* @__PURE__ */ z.strictObject({ id: idParam, revisionId: idParam });

const quantity = /* @__PURE__ */ (() =>
  z.number().check(
    z.positive({ message: 'Must be greater than 0.' }),
    z.maximum(1_000_000_000, { message: 'Must be at most 1000000000.' }),
    z.refine((value: number) => hasAllowedDecimals(String(value)), { message: `Must have at most ${BOM_LIMITS.quantityDecimals} decimals.` }),
  ))();

const text = (max: number) => z.string().check(z.maxLength(max));

const unit = /* @__PURE__ */ (() =>
  z.optional(z.nullable(z.string().check(z.minLength(1), z.maxLength(BOM_LIMITS.unit), z.regex(IDENTIFIER_PATTERN, { message: IDENTIFIER_RULE })))))();

const component = /* @__PURE__ */ (() =>
  z.strictObject({
    itemId: idParam,
    quantity,
    unit,
    // Decimals bounded as a quantity's: a number as small as 1e-131 is one DynamoDB cannot store.
    scrapPercent: z.optional(
      z.number().check(
        z.minimum(0, { message: 'Must be between 0 and 100.' }),
        z.maximum(100, { message: 'Must be between 0 and 100.' }),
        z.refine((value: number) => hasAllowedDecimals(String(value)), { message: `Must have at most ${BOM_LIMITS.quantityDecimals} decimals.` }),
      ),
    ),
    notes: z.optional(z.nullable(text(BOM_LIMITS.lineNotes))),
  }))();

const contentFields = /* @__PURE__ */ (() => ({
  name: z.string().check(z.minLength(1), z.maxLength(BOM_LIMITS.name)),
  targetItemId: idParam,
  status: z.optional(z.enum(BOM_STATUSES)),
  outputQuantity: z.optional(quantity),
  unit,
  notes: z.optional(z.nullable(text(BOM_LIMITS.notes))),
  components: z
    .array(component)
    .check(
      z.minLength(1, { message: 'A BOM has at least one component.' }),
      z.maxLength(BOM_LIMITS.components, { message: `A BOM has at most ${BOM_LIMITS.components} component lines.` }),
    ),
}))();

/**
 * Lines are matched by item (docs/boms.md "Compare"), so an item may appear once per BOM; and the
 * item a BOM makes is never one of its own components.
 */
function uniqueComponentItems(body: { targetItemId: string; components: Array<{ itemId: string }> }, context: z.core.$RefinementCtx): void {
  const first = new Map<string, number>();
  body.components.forEach(({ itemId }, index) => {
    const earlier = first.get(itemId);
    if (itemId === body.targetItemId)
      context.addIssue({ code: 'custom', path: ['components', index, 'itemId'], message: 'The target item cannot be a component of its own BOM.' });
    else if (earlier === undefined) first.set(itemId, index);
    else
      context.addIssue({
        code: 'custom',
        path: ['components', index, 'itemId'],
        message: `The same item as component ${earlier}; each item may appear once per BOM.`,
      });
  });
}

export const createBomBody = /* @__PURE__ */ (() =>
  z
    .strictObject({
      code: z.string().check(z.minLength(1), z.maxLength(BOM_LIMITS.code), z.regex(IDENTIFIER_PATTERN, { message: IDENTIFIER_RULE })),
      ...contentFields,
    })
    .check(z.superRefine(uniqueComponentItems)))();

export const updateBomBody = /* @__PURE__ */ (() =>
  z
    .strictObject({
      ...contentFields,
      archived: z.optional(z.boolean()),
      expectedRevisionNumber: z.optional(z.number().check(z.int(), z.minimum(1), z.maximum(2_147_483_647))),
    })
    .check(z.superRefine(uniqueComponentItems)))();
