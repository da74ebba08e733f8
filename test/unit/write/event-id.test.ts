import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { newEventId, sequenceOfEventId } from '../../../lib/platform/events/event-id.ts';

describe('event ids', () => {
  it('carry their sequence number (property)', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 2 ** 48 }), (sequence) => sequenceOfEventId(newEventId(sequence)) === sequence));
  });

  it('are unguessable: two ids of one sequence differ', () => {
    expect(newEventId(7)).not.toBe(newEventId(7));
    expect(newEventId(7)).toMatch(/^evt_[0-9A-Z]{26}$/);
  });

  it.each(['', 'evt_', 'evt_0000000000', 'itm_00000000010000000000000000', 'evt_0000000000AAAAAAAAAAAAAAAA', 'evt_0000000001aaaaaaaaaaaaaaaa'])(
    'reject %j',
    (id) => expect(sequenceOfEventId(id)).toBeUndefined(),
  );
});
