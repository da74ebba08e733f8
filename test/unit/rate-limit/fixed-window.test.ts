import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  COUNTER_GRACE_SECONDS,
  counterExpiresAt,
  evaluateWindow,
  exceededWindow,
  secondsUntilReset,
  windowStartOf,
  type RateLimitPolicy,
  type WindowEvaluation,
} from '../../../lib/platform/rate-limit/fixed-window.ts';

/** 2026-01-31T12:00:00Z: a whole minute, so a 60 s window starts exactly here. */
const BOUNDARY_MS = Date.UTC(2026, 0, 31, 12, 0, 0);
const BOUNDARY_S = BOUNDARY_MS / 1000;

const GENERAL: RateLimitPolicy = { name: 'general', limit: 1200, windowSeconds: 60 };
const SUBMISSION: RateLimitPolicy = { name: 'submission', limit: 20, windowSeconds: 60 };

describe('windowStartOf', () => {
  it.each([
    ['exactly on a boundary', BOUNDARY_MS, BOUNDARY_S],
    ['1 ms after a boundary', BOUNDARY_MS + 1, BOUNDARY_S],
    ['1 ms before a boundary', BOUNDARY_MS - 1, BOUNDARY_S - 60],
    ['mid-window', BOUNDARY_MS + 30_500, BOUNDARY_S],
    ['last whole second of the window', BOUNDARY_MS + 59_999, BOUNDARY_S],
    ['next boundary', BOUNDARY_MS + 60_000, BOUNDARY_S + 60],
  ])('%s', (_label, nowMs, expected) => {
    expect(windowStartOf(nowMs, 60)).toBe(expected);
  });

  it('aligns windows to the epoch and contains the instant (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4_102_444_800_000 }), fc.constantFrom(1, 10, 60, 3600), (nowMs, windowSeconds) => {
        const start = windowStartOf(nowMs, windowSeconds);
        expect(start % windowSeconds).toBe(0);
        expect(start * 1000).toBeLessThanOrEqual(nowMs);
        expect(nowMs).toBeLessThan((start + windowSeconds) * 1000);
      }),
    );
  });
});

describe('secondsUntilReset', () => {
  it.each([
    ['exactly on a boundary: a full window', BOUNDARY_MS, 60],
    ['1 ms after a boundary: rounded up', BOUNDARY_MS + 1, 60],
    ['1 ms before a boundary: at least 1', BOUNDARY_MS - 1, 1],
    ['59 s into the window', BOUNDARY_MS + 59_000, 1],
    ['58.999 s into the window', BOUNDARY_MS + 58_999, 2],
    ['30.5 s into the window', BOUNDARY_MS + 30_500, 30],
  ])('%s → %i', (_label, nowMs, expected) => {
    expect(secondsUntilReset(nowMs, 60)).toBe(expected);
  });

  it('is a whole number of seconds in [1, window] that reaches the window end (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4_102_444_800_000 }), fc.constantFrom(1, 60, 3600), (nowMs, windowSeconds) => {
        const seconds = secondsUntilReset(nowMs, windowSeconds);
        expect(Number.isInteger(seconds)).toBe(true);
        expect(seconds).toBeGreaterThanOrEqual(1);
        expect(seconds).toBeLessThanOrEqual(windowSeconds);
        // Waiting that long always lands in a later window.
        expect(windowStartOf(nowMs + seconds * 1000, windowSeconds)).toBeGreaterThan(windowStartOf(nowMs, windowSeconds));
      }),
    );
  });
});

describe('counterExpiresAt', () => {
  it('keeps a counter until the grace period after its window ends', () => {
    expect(counterExpiresAt(BOUNDARY_S, 60)).toBe(BOUNDARY_S + 60 + COUNTER_GRACE_SECONDS);
  });
});

describe('evaluateWindow', () => {
  it.each([
    ['first request', 1, 1199, false],
    ['one before the limit', 1199, 1, false],
    ['exactly the limit', 1200, 0, false],
    ['one over the limit', 1201, 0, true],
    ['far over the limit', 5000, 0, true],
  ])('%s (count %i): remaining %i, exceeded %s', (_label, count, remaining, exceeded) => {
    // Act
    const evaluation = evaluateWindow(GENERAL, count, BOUNDARY_MS + 18_000);
    // Assess
    expect(evaluation).toEqual({
      status: { policy: 'general', limit: 1200, windowSeconds: 60, remaining, resetSeconds: 42 },
      exceeded,
    });
  });
});

describe('exceededWindow', () => {
  const evaluation = (policy: RateLimitPolicy, count: number, resetSeconds: number): WindowEvaluation => {
    const result = evaluateWindow(policy, count, BOUNDARY_MS);
    return { ...result, status: { ...result.status, resetSeconds } };
  };

  it('is undefined while every window is within its limit', () => {
    expect(exceededWindow([evaluation(GENERAL, 1200, 10), evaluation(SUBMISSION, 20, 10)])).toBeUndefined();
  });

  it.each([
    ['general only', [evaluation(GENERAL, 1201, 10), evaluation(SUBMISSION, 3, 10)], 'general'],
    ['submission only', [evaluation(GENERAL, 30, 10), evaluation(SUBMISSION, 21, 10)], 'submission'],
    ['both: the one that resets last', [evaluation(GENERAL, 1201, 10), evaluation(SUBMISSION, 21, 25)], 'submission'],
  ] as const)('names the exceeded window: %s', (_label, evaluations, policy) => {
    expect(exceededWindow(evaluations)?.policy).toBe(policy);
  });

  it('is undefined for no windows', () => {
    expect(exceededWindow([])).toBeUndefined();
  });
});
