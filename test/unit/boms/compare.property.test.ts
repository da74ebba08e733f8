import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BOM_STATUSES, type BomComponentInput, type BomContent, type BomContentInput } from '../../../lib/boms/domain/bom.ts';
import { applyComparison, compareContents } from '../../../lib/boms/domain/compare.ts';
import { contentFromInput, sameContent } from '../../../lib/boms/domain/content.ts';
import { sumQuantities } from '../../../lib/inventory/domain/stock.ts';

// A small item pool, so updates often remove an item and re-add it later.
const ITEM_POOL = Array.from({ length: 10 }, (_, index) => `itm_${index}`);

const sixDecimals = (max: number) => fc.integer({ min: 1, max: max * 1e6 }).map((units) => units / 1e6);
const quantity = fc.oneof(fc.integer({ min: 1, max: 5 }), sixDecimals(1000));
const scrapPercent = fc.oneof(fc.constant(undefined), fc.constant(0), sixDecimals(100));
const unit = fc.constantFrom(undefined, null, 'ea', 'kg', 'l');
const notes = fc.constantFrom(undefined, null, 'spare', 'check torque');

const component = fc.record({ itemIndex: fc.nat(ITEM_POOL.length - 1), quantity, unit, scrapPercent, notes });
const componentEdit = fc.record({ quantity, unit, scrapPercent, notes }, { requiredKeys: [] });

/** Header fields of a request; an absent key keeps the previous request's value, `undefined` omits the field. */
const headerEdit = fc.record(
  {
    name: fc.constantFrom('Pump', 'Pump v2'),
    targetItemId: fc.constantFrom('itm_PUMP', 'itm_PUMP_2'),
    status: fc.constantFrom(undefined, ...BOM_STATUSES),
    outputQuantity: fc.oneof(fc.constant(undefined), quantity),
    unit,
    notes,
  },
  { requiredKeys: [] },
);

/** One PUT: header edits, then per existing component keep / remove / edit, then additions, then a reorder. */
const update = fc.record({
  header: headerEdit,
  lineActions: fc.array(fc.oneof(fc.constant('keep' as const), fc.constant('remove' as const), componentEdit), { minLength: 1, maxLength: 6 }),
  additions: fc.array(component, { maxLength: 4 }),
  orderKeys: fc.array(fc.nat(), { minLength: 1, maxLength: 12 }),
});
type Update = ValueOf<typeof update>;
type ValueOf<A> = A extends fc.Arbitrary<infer T> ? T : never;

const history = fc.record({
  initial: fc.record({ name: fc.constant('Pump'), targetItemId: fc.constant('itm_PUMP'), components: fc.array(component, { maxLength: 8 }) }),
  updates: fc.array(update, { maxLength: 6 }),
});

function toInput({ itemIndex, ...fields }: { itemIndex: number } & Omit<BomComponentInput, 'itemId'>): BomComponentInput {
  return { itemId: ITEM_POOL[itemIndex] ?? 'itm_unknown', ...fields };
}

/** Components whose item is already listed are dropped: the schema rejects duplicates before the domain sees them. */
function uniqueByItem(components: BomComponentInput[]): BomComponentInput[] {
  return components.filter((candidate, index) => components.findIndex((other) => other.itemId === candidate.itemId) === index);
}

function applyUpdate(previous: BomContentInput, { header, lineActions, additions, orderKeys }: Update): BomContentInput {
  const kept = previous.components.flatMap((existing, index) => {
    const action = lineActions[index % lineActions.length];
    if (action === 'remove') return [];
    return action === 'keep' || action === undefined ? [existing] : [{ ...existing, ...action }];
  });
  const components = uniqueByItem([...kept, ...additions.map(toInput)]);
  const orderKey = (index: number) => orderKeys[index % orderKeys.length] ?? 0;
  const order = components.map((_, index) => index).sort((a, b) => orderKey(a) - orderKey(b) || a - b);
  return { ...previous, ...header, components: order.map((index) => components[index] as BomComponentInput) };
}

function revisionsOf({ initial, updates }: ValueOf<typeof history>): BomContent[] {
  let counter = 0;
  const newLineId = () => `bln_${(counter += 1)}`;
  let input: BomContentInput = { ...initial, components: uniqueByItem(initial.components.map(toInput)) };
  const revisions = [contentFromInput(input, undefined, newLineId)];
  for (const next of updates) {
    input = applyUpdate(input, next);
    revisions.push(contentFromInput(input, revisions.at(-1), newLineId));
  }
  return revisions;
}

function byItemId(content: BomContent): BomContent {
  return { ...content, lines: [...content.lines].sort((a, b) => a.itemId.localeCompare(b.itemId)) };
}

/**
 * What applying the comparison of `from` with `to` must give. An item removed and re-added in
 * between carries a new lineId in `to`, yet the comparison matches it to `from`'s line, which
 * keeps its lineId; every other line must come out exactly as in `to`.
 */
function expectedFrom(from: BomContent, to: BomContent): BomContent {
  const fromLineIds = new Map(from.lines.map((line) => [line.itemId, line.lineId]));
  return byItemId({ ...to, lines: to.lines.map((line) => ({ ...line, lineId: fromLineIds.get(line.itemId) ?? line.lineId })) });
}

describe('compareContents and applyComparison over random revision histories', () => {
  it('applying the comparison of revision i with revision j to i gives j, for every i and j', () => {
    fc.assert(
      fc.property(history, (generated) => {
        // Prepare
        const revisions = revisionsOf(generated);

        for (const from of revisions) {
          for (const to of revisions) {
            // Act
            const comparison = compareContents(from, to);
            const applied = applyComparison(from, comparison);

            // Assess
            expect(byItemId(applied)).toEqual(expectedFrom(from, to));
            const { added, removed, changed, unchanged } = comparison.summary;
            expect(removed + changed + unchanged).toBe(from.lines.length);
            expect(added + changed + unchanged).toBe(to.lines.length);
            expect(sameContent(from, to)).toBe(comparison.fields.length === 0 && added + removed + changed === 0);
            for (const line of comparison.components.changed) {
              const before = from.lines.find((candidate) => candidate.itemId === line.itemId);
              const after = to.lines.find((candidate) => candidate.itemId === line.itemId);
              expect(sumQuantities([before?.quantity ?? NaN, line.quantityDelta])).toBe(after?.quantity);
              expect(Math.round(line.quantityDelta * 1e6) / 1e6).toBe(line.quantityDelta);
            }
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
