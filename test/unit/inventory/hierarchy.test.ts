import { describe, expect, it } from 'vitest';
import { Hierarchy, loadAncestry } from '../../../lib/inventory/domain/hierarchy.ts';

describe('Hierarchy.wouldCycle', () => {
  // A > B > C, and D alone
  const tree = () =>
    new Hierarchy(
      new Map<string, string | null>([
        ['A', null],
        ['B', 'A'],
        ['C', 'B'],
        ['D', null],
      ]),
    );

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
    const looped = new Hierarchy(
      new Map([
        ['P', 'Q'],
        ['Q', 'P'],
      ]),
    );
    expect(looped.wouldCycle('X', 'P')).toBe(true);
  });
});

describe('loadAncestry', () => {
  it('loads ancestors level by level, one batch per level', async () => {
    // Prepare: only the leaf is known; the store knows the chain up to the root
    const store = new Map<string, string | null>([
      ['B', 'A'],
      ['A', null],
    ]);
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

  it('loads a 70-deep chain to its root, so moving the top under the bottom is a cycle', async () => {
    // Prepare: L1 is the top, L70 the bottom; only L70 is known at first
    const store = new Map<string, string | null>(Array.from({ length: 70 }, (_, index) => [`L${index + 1}`, index === 0 ? null : `L${index}`]));
    let rounds = 0;
    // Act
    const hierarchy = await loadAncestry(new Map([['L70', 'L69']]), async (keys) => {
      rounds += 1;
      return new Map(keys.map((key) => [key, store.get(key) ?? null]));
    });
    // Assess
    expect(rounds).toBe(69);
    expect(hierarchy.wouldCycle('L1', 'L70')).toBe(true);
    expect(hierarchy.wouldCycle('L70', 'L1')).toBe(false);
  });

  it('ends on a stored chain that loops, and refuses to hang anything under the loop', async () => {
    const store = new Map<string, string | null>([
      ['A', 'B'],
      ['B', 'A'],
    ]);
    const hierarchy = await loadAncestry(new Map([['C', 'A']]), async (keys) => new Map(keys.map((key) => [key, store.get(key) ?? null])));
    expect(hierarchy.wouldCycle('C', 'A')).toBe(true);
    expect(hierarchy.wouldCycle('A', 'C')).toBe(true);
  });

  it('treats an unknown ancestor as a root', async () => {
    const hierarchy = await loadAncestry(new Map([['C', 'GONE']]), async () => new Map());
    expect(hierarchy.wouldCycle('C', 'GONE')).toBe(false);
  });
});

describe('Hierarchy checks (issue 24, item 13)', () => {
  it('checks the stored ancestors of a moved record once per chunk, not those of new or unmoved records, nor records the chunk writes; rollback undoes a unit', () => {
    // Prepare: WH > Z > A; B, C and D at the top; all stored at version 3
    const hierarchy = new Hierarchy(
      new Map<string, string | null>([
        ['WH', null],
        ['Z', 'WH'],
        ['A', 'Z'],
        ['B', null],
        ['C', null],
        ['D', null],
      ]),
    );
    for (const key of ['WH', 'Z', 'A', 'B', 'C', 'D']) hierarchy.noteStored(key, { record: { code: key }, version: 3 });
    hierarchy.startChunk();

    // Act: a new record under A, A keeps its parent, B moves under A; then a unit moving C under D is rolled back
    hierarchy.link('NEW', 'A', { code: 'NEW' });
    hierarchy.link('A', 'Z', { code: 'A' });
    hierarchy.link('B', 'A', { code: 'B' });
    const afterMove = hierarchy.checks().map((check) => [check.key, check.version]);
    hierarchy.begin();
    hierarchy.link('C', 'D', { code: 'C' });
    const duringUnit = { checks: hierarchy.checks().map((check) => check.key), cycle: hierarchy.wouldCycle('D', 'C') };
    hierarchy.rollback();

    // Assess: B's move rests on Z and WH (A is written by the chunk, so its own write is conditioned)
    expect(afterMove).toEqual([
      ['Z', 3],
      ['WH', 3],
    ]);
    expect(duringUnit).toEqual({ checks: ['Z', 'WH', 'D'], cycle: true });
    expect(hierarchy.checks().map((check) => check.key)).toEqual(['Z', 'WH']);
    expect(hierarchy.wouldCycle('D', 'C')).toBe(false);
  });
});
