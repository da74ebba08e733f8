import { describe, expect, it } from 'vitest';
import type { EventDraft } from '../../../lib/domain/events/types.ts';
import { planChunks, type StoreWrite } from '../../../lib/store/transaction-writer.ts';

const unit = (writes: number, events: number) => ({
  writes: Array.from({ length: writes }, (): StoreWrite => ({ item: {} })),
  events: Array.from({ length: events }, (): EventDraft => ({ type: 'stock.changed', data: {} })),
});

describe('planChunks', () => {
  it('fills each transaction up to 100 actions, keeping room for the counter and checkpoint', () => {
    // Prepare: 100 rows of 1 write + 2 events = 3 actions each.
    const units = Array.from({ length: 100 }, () => unit(1, 2));
    // Act
    const chunks = planChunks(units);
    // Assess: 98 / 3 = 32 rows per chunk.
    expect(chunks.map((chunk) => chunk.length)).toEqual([32, 32, 32, 4]);
    for (const chunk of chunks) expect(chunk.reduce((sum, u) => sum + u.writes.length + u.events.length, 0)).toBeLessThanOrEqual(98);
  });

  it('never splits a unit', () => {
    expect(planChunks([unit(60, 0), unit(60, 0)]).map((chunk) => chunk.length)).toEqual([1, 1]);
  });

  it('refuses a unit too big for one transaction', () => {
    expect(() => planChunks([unit(99, 0)])).toThrow(/at most 98/);
  });

  it.each([
    { maxActions: 10, sizes: [4, 4, 2] },
    { maxActions: 500, sizes: [10] },
  ])('plans transactions of at most min($maxActions, 100) actions', ({ maxActions, sizes }) => {
    // Prepare: 10 rows of 1 write + 1 event
    const units = Array.from({ length: 10 }, () => unit(1, 1));
    // Act / Assess: 8 actions after the 2 reserved hold 4 rows; above DynamoDB's limit, its limit holds
    expect(planChunks(units, { maxActions }).map((chunk) => chunk.length)).toEqual(sizes);
  });

  it('plans nothing for no work', () => {
    expect(planChunks([])).toEqual([]);
  });
});
