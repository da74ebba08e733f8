import { describe, expect, it } from 'vitest';
import { createBomBody, updateBomBody } from '../../../lib/boms/contracts/boms.ts';

/**
 * The BOM bodies' identifiers (`code`, the BOM's and each line's `unit`) follow the identifier rule
 * of lib/platform/core/identifiers.ts: no invisible format characters, so `KIT\u200B` is not a second `KIT`.
 */

const TARGET = 'itm_01J00000000000000000000001';
const COMPONENT = 'itm_01J00000000000000000000002';

const body = (overrides: Record<string, unknown> = {}) => ({
  code: 'KIT-1',
  name: 'Kit',
  targetItemId: TARGET,
  components: [{ itemId: COMPONENT, quantity: 2, unit: 'kg' }],
  ...overrides,
});

const INVISIBLE = ['\u200B', '\u200D', '\u2060', '\uFEFF', '\u00AD', '\u200F', '\u202A', '\u202E', '\u2066', '\u2069'];

function issuePaths(result: { success: boolean; error?: { issues: Array<{ path: PropertyKey[] }> } }): string[] {
  return (result.error?.issues ?? []).map((issue) => issue.path.join('/'));
}

describe('BOM bodies: identifiers refuse format characters', () => {
  it.each(INVISIBLE.map((character) => [character.codePointAt(0)?.toString(16), character]))('create refuses U+%s inside code', (_hex, character) => {
    // Act
    const result = createBomBody.safeParse(body({ code: `KIT${character}-1` }));

    // Assess
    expect(result.success).toBe(false);
    expect(issuePaths(result)).toEqual(['code']);
  });

  it.each([
    ['the BOM unit', { unit: 'k\u200Bg' }, 'unit'],
    ['a line unit', { components: [{ itemId: COMPONENT, quantity: 2, unit: 'kg\u202E' }] }, 'components/0/unit'],
  ])('create and update refuse a format character in %s', (_label, change, path) => {
    // Act
    const created = createBomBody.safeParse(body(change));
    const { code: _code, ...update } = body(change);
    const updated = updateBomBody.safeParse(update);

    // Assess
    expect(issuePaths(created)).toEqual([path]);
    expect(issuePaths(updated)).toEqual([path]);
  });

  it('accepts visible non-ASCII codes and units', () => {
    // Act
    const result = createBomBody.safeParse(body({ code: 'ÉCROU-螺母-𝔸', unit: 'µm' }));

    // Assess
    expect(result.success).toBe(true);
  });
});
