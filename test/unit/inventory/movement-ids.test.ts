import { describe, expect, it } from 'vitest';
import { idTime, MAX_ULID_TIME, newId, ulid } from '../../../lib/platform/core/ids.ts';
import { isMovementTime, movementTimeOf, newMovementId } from '../../../lib/inventory/domain/stock.ts';

/** Movement ids carry their movement's time, so the store derives the key from the id (docs/inventory.md "Reading inventory"). */

describe('movement ids', () => {
  it.each(['2026-11-22T10:00:00.000Z', '1970-01-01T00:00:00.000Z', '2026-02-28T23:59:59.999Z'])(
    'makes an id whose time is occurredAt %s, to the millisecond',
    (occurredAt) => {
      // Act
      const id = newMovementId(occurredAt);

      // Assess
      expect(id).toMatch(/^mov_[0-9A-HJKMNP-TV-Z]{26}$/);
      expect(movementTimeOf(id)).toBe(occurredAt);
      expect(idTime('mov', id)).toBe(Date.parse(occurredAt));
    },
  );

  it('makes two ids of the same time different (80 random bits)', () => {
    expect(newMovementId('2026-11-22T10:00:00.000Z')).not.toBe(newMovementId('2026-11-22T10:00:00.000Z'));
  });

  it.each([
    { label: 'before 1970', occurredAt: '1969-12-31T23:59:59.999Z' },
    { label: 'without milliseconds', occurredAt: '2026-11-22T10:00:00Z' },
    { label: 'with an offset', occurredAt: '2026-11-22T10:00:00.000+01:00' },
    { label: 'not a time', occurredAt: 'yesterday' },
  ])('refuses an occurredAt $label: it is not a time a movement carries', ({ occurredAt }) => {
    expect(isMovementTime(occurredAt)).toBe(false);
    expect(() => newMovementId(occurredAt)).toThrow(RangeError);
  });

  it('reads no time from an id of another type, another length or outside Crockford base32', () => {
    expect(movementTimeOf(newId('stk'))).toBeUndefined();
    expect(movementTimeOf('mov_missing000000')).toBeUndefined();
    expect(movementTimeOf(`mov_${'U'.repeat(26)}`)).toBeUndefined();
  });

  it('refuses a ULID time outside 0..2^48-1 instead of making a malformed id', () => {
    expect(() => ulid(-1)).toThrow(RangeError);
    expect(() => ulid(MAX_ULID_TIME + 1)).toThrow(RangeError);
    expect(idTime('mov', `mov_${ulid(MAX_ULID_TIME)}`)).toBe(MAX_ULID_TIME);
  });
});
