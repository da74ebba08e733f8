import * as z from 'zod';
import { BOM_LIMITS, BOM_STATUSES, hasAllowedDecimals } from '../domain/boms/bom.ts';
import { idParam } from './primitives.ts';

/**
 * Request schemas shared by the BOM operations (docs/boms.md); each operation's own contract is
 * in lib/contracts/boms/<operation>.ts, the response bodies in lib/contracts/boms/responses.ts.
 */

export const bomPath = z.strictObject({ id: idParam });
export const bomRevisionPath = z.strictObject({ id: idParam, revisionId: idParam });

/** No control characters, no leading or trailing space (as item skus). */
const IDENTIFIER = /^[^\s\p{Cc}](?:[^\p{Cc}]*[^\s\p{Cc}])?$/u;

const quantity = z
  .number()
  .positive({ message: 'Must be greater than 0.' })
  .max(1_000_000_000, { message: 'Must be at most 1000000000.' })
  .refine((value) => hasAllowedDecimals(String(value)), { message: `Must have at most ${BOM_LIMITS.quantityDecimals} decimals.` });

const text = (max: number) => z.string().max(max);

const component = z.strictObject({
  itemId: idParam,
  quantity,
  unit: z.string().min(1).max(BOM_LIMITS.unit).regex(IDENTIFIER, { message: 'No control characters, no leading or trailing spaces.' }).nullable().optional(),
  scrapPercent: z.number().min(0, { message: 'Must be between 0 and 100.' }).max(100, { message: 'Must be between 0 and 100.' }).optional(),
  notes: text(BOM_LIMITS.lineNotes).nullable().optional(),
});

const contentFields = {
  name: z.string().min(1).max(BOM_LIMITS.name),
  targetItemId: idParam,
  status: z.enum(BOM_STATUSES).optional(),
  outputQuantity: quantity.optional(),
  unit: z.string().min(1).max(BOM_LIMITS.unit).regex(IDENTIFIER, { message: 'No control characters, no leading or trailing spaces.' }).nullable().optional(),
  notes: text(BOM_LIMITS.notes).nullable().optional(),
  components: z.array(component).min(1, { message: 'A BOM has at least one component.' }).max(BOM_LIMITS.components),
};

/**
 * Lines are matched by item (docs/boms.md "Compare"), so an item may appear once per BOM; and the
 * item a BOM makes is never one of its own components.
 */
function uniqueComponentItems(body: { targetItemId: string; components: Array<{ itemId: string }> }, context: z.RefinementCtx): void {
  const first = new Map<string, number>();
  body.components.forEach(({ itemId }, index) => {
    const earlier = first.get(itemId);
    if (itemId === body.targetItemId) context.addIssue({ code: 'custom', path: ['components', index, 'itemId'], message: 'The target item cannot be a component of its own BOM.' });
    else if (earlier === undefined) first.set(itemId, index);
    else context.addIssue({ code: 'custom', path: ['components', index, 'itemId'], message: `The same item as component ${earlier}; each item may appear once per BOM.` });
  });
}

export const createBomBody = z
  .strictObject({ code: z.string().min(1).max(BOM_LIMITS.code).regex(IDENTIFIER, { message: 'No control characters, no leading or trailing spaces.' }), ...contentFields })
  .superRefine(uniqueComponentItems);

export const updateBomBody = z
  .strictObject({ ...contentFields, archived: z.boolean().optional(), expectedRevisionNumber: z.number().int().min(1).max(2_147_483_647).optional() })
  .superRefine(uniqueComponentItems);
