import { describe, expect, it } from 'vitest';
import { Hierarchy, loadAncestry } from '../../../lib/domain/imports/hierarchy.ts';

describe('Hierarchy.wouldCycle', () => {
  // A > B > C, and D alone
  const tree = () => new Hierarchy(new Map<string, string | null>([['A', null], ['B', 'A'], ['C', 'B'], ['D', null]]));

  it.each([
    ['A', 'C', true],
    ['A', 'A', true],
    ['B', 'C', true],
    ['C', 'A', false],
    ['D', 'C', false],
    ['A', null, false],
    ['X', 'C', false],
  ])('%s under %s → %s', (key, parent, cycle) => {
    expect(tree().wouldCycle(key, parent)).toBe(cycle);
  });

  it('sees links set by earlier rows', () => {
    const hierarchy = tree();
    hierarchy.set('D', 'C');
    expect(hierarchy.wouldCycle('A', 'D')).toBe(true);
  });

  it('stops on a loop already in the data', () => {
    const looped = new Hierarchy(new Map([['P', 'Q'], ['Q', 'P']]));
    expect(looped.wouldCycle('X', 'P')).toBe(true);
  });
});

describe('loadAncestry', () => {
  it('loads ancestors level by level, one batch per level', async () => {
    // Prepare: only the leaf is known; the store knows the chain up to the root
    const store = new Map<string, string | null>([['B', 'A'], ['A', null]]);
    const batches: string[][] = [];
    // Act
    const hierarchy = await loadAncestry(new Map([['C', 'B']]), async (keys) => {
      batches.push(keys);
      return new Map(keys.filter((key) => store.has(key)).map((key) => [key, store.get(key) ?? null]));
    });
    // Assess
    expect(batches).toEqual([['B'], ['A']]);
    expect(hierarchy.wouldCycle('A', 'C')).toBe(true);
  });

  it('treats an unknown ancestor as a root', async () => {
    const hierarchy = await loadAncestry(new Map([['C', 'GONE']]), async () => new Map());
    expect(hierarchy.wouldCycle('C', 'GONE')).toBe(false);
  });
});
