import { describe, expect, it } from 'vitest';
import { createBomBody, updateBomBody } from '../../../lib/boms/contracts/boms.ts';
import { BOM_LIMITS } from '../../../lib/boms/domain/bom.ts';

/**
 * The BOM bodies' sizes and numbers (docs/boms.md "Model"): 1 to 500 component lines; a scrap percentage, like a quantity, has at most 6 decimals, so that no
 * value reaches storage that DynamoDB cannot hold (a number as small as 1e-131 is one).
 */

const TARGET = 'itm_01J00000000000000000000000';
const component = (index: number, overrides: Record<string, unknown> = {}) => ({
  itemId: `itm_01J${String(index + 1).padStart(23, '0')}`,
  quantity: 1,
  ...overrides,
});
const body = (components: unknown[]) => ({ code: 'KIT-1', name: 'Kit', targetItemId: TARGET, components });
const lines = (count: number) => Array.from({ length: count }, (_, index) => component(index));

function issues(result: { success: boolean; error?: { issues: Array<{ path: PropertyKey[]; message: string }> } }): Array<[string, string]> {
  return (result.error?.issues ?? []).map((issue) => [issue.path.join('/'), issue.message]);
}

describe('BOM bodies: sizes and numbers', () => {
  it(`take ${BOM_LIMITS.components} component lines on create and update, and refuse one more saying so`, () => {
    // Act
    const largest = createBomBody.safeParse(body(lines(500)));
    const { code: _code, ...update } = body(lines(500));
    const largestUpdate = updateBomBody.safeParse(update);
    const tooLarge = createBomBody.safeParse(body(lines(501)));

    // Assess
    expect(BOM_LIMITS.components).toBe(500);
    expect([largest.success, largestUpdate.success]).toEqual([true, true]);
    expect(issues(tooLarge)).toEqual([['components', 'A BOM has at most 500 component lines.']]);
  });

  it.each([
    [12.5, true],
    [99.999999, true],
    [0.0000001, false],
    [1e-131, false],
    [33.333333333333336, false],
  ])('scrapPercent %s: accepted %s', (scrapPercent, accepted) => {
    // Act
    const result = createBomBody.safeParse(body([component(0, { scrapPercent })]));

    // Assess
    expect(result.success).toBe(accepted);
    if (!accepted) expect(issues(result)).toEqual([['components/0/scrapPercent', 'Must have at most 6 decimals.']]);
  });
});
