import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DISABLE_AFTER_FAILING_SECONDS,
  MAX_RETRY_AFTER_SECONDS,
  nextAttemptDelaySeconds,
  RETRY_DELAYS_SECONDS,
} from '../../../lib/webhooks/domain/retry-schedule.ts';

const middle = (): number => 0.5;

describe('RETRY_DELAYS_SECONDS', () => {
  it('is the Standard Webhooks schedule: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 14 h, 20 h, 24 h', () => {
    expect(RETRY_DELAYS_SECONDS).toEqual([5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400]);
  });

  it('adds up to about three days, and the endpoint is disabled only after five days of failures', () => {
    // Act
    const total = RETRY_DELAYS_SECONDS.reduce((sum, delay) => sum + delay, 0);

    // Assess
    expect(total).toBe(272_105); // 3 days 3 h 35 min
    expect(DISABLE_AFTER_FAILING_SECONDS).toBe(432_000);
  });
});

describe('nextAttemptDelaySeconds', () => {
  it('waits the scheduled delay after each of attempts 1..9 when the jitter is centred', () => {
    // Act
    const delays = [1, 2, 3, 4, 5, 6, 7, 8, 9].map((attempt) => nextAttemptDelaySeconds(attempt, null, middle));

    // Assess
    expect(delays).toEqual([...RETRY_DELAYS_SECONDS]);
  });

  it('returns null once attempt 10 (the last) has failed, and for any later attempt', () => {
    expect(nextAttemptDelaySeconds(10, null, middle)).toBeNull();
    expect(nextAttemptDelaySeconds(11, 60, middle)).toBeNull();
  });

  it('keeps every wait within ±20 % of the schedule for any random value', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 9 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (attempt, random) => {
        // Act
        const delay = nextAttemptDelaySeconds(attempt, null, () => random);

        // Assess
        const base = RETRY_DELAYS_SECONDS[attempt - 1]!;
        expect(Number.isInteger(delay)).toBe(true);
        expect(delay).toBeGreaterThanOrEqual(base * 0.8);
        expect(delay).toBeLessThanOrEqual(base * 1.2);
      }),
      { numRuns: 2000 },
    );
  });

  it('spreads the waits over the jitter range instead of using one value', () => {
    // Act
    const low = nextAttemptDelaySeconds(2, null, () => 0);
    const high = nextAttemptDelaySeconds(2, null, () => 0.999999);

    // Assess
    expect([low, high]).toEqual([240, 360]);
  });

  it('never waits less than a Retry-After, rounded up to a whole second', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 9 }),
        fc.double({ min: 0, max: 200_000, noNaN: true }),
        fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }),
        (attempt, retryAfter, random) => {
          // Act
          const delay = nextAttemptDelaySeconds(attempt, retryAfter, () => random)!;

          // Assess
          expect(delay).toBeGreaterThanOrEqual(Math.min(retryAfter, MAX_RETRY_AFTER_SECONDS));
          expect(delay).toBeGreaterThanOrEqual(RETRY_DELAYS_SECONDS[attempt - 1]! * 0.8);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('uses a Retry-After longer than the schedule as the wait, and ignores a shorter one', () => {
    expect(nextAttemptDelaySeconds(1, 120, middle)).toBe(120);
    expect(nextAttemptDelaySeconds(1, 0.2, middle)).toBe(5);
    expect(nextAttemptDelaySeconds(3, 60, middle)).toBe(1800);
  });

  it("caps a Retry-After at the schedule's longest wait (24 h), however large", () => {
    const longest = Math.max(...RETRY_DELAYS_SECONDS);
    for (const retryAfter of [longest + 1, 10 ** 12, 10 ** 20, Number.MAX_SAFE_INTEGER, Number.MAX_VALUE]) {
      const delay = nextAttemptDelaySeconds(1, retryAfter, middle)!;
      expect(delay).toBe(longest);
      // The next attempt's due time is a valid date (a huge wait used to throw a RangeError here).
      expect(() => new Date(Date.now() + delay * 1000).toISOString()).not.toThrow();
    }
  });

  it('refuses an attempt number that is not a whole number ≥ 1', () => {
    expect(() => nextAttemptDelaySeconds(0, null, middle)).toThrow(RangeError);
    expect(() => nextAttemptDelaySeconds(1.5, null, middle)).toThrow(RangeError);
  });
});
