import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { CounterWindow } from '../../../lib/platform/rate-limit/auth-failures.ts';
import { counterExpiresAt, type RateLimitCounter, type RateLimitPolicy, type TokenAdd } from '../../../lib/platform/rate-limit/fixed-window.ts';
import { TokenLeases, type LeaseOutcome } from '../../../lib/platform/rate-limit/token-leases.ts';
import { InMemoryCounter } from './in-memory-counter.ts';

/**
 * Several containers leasing from one counter (the model with the store's condition semantics),
 * with fast-check's scheduler choosing when each write reaches the table and when its answer
 * reaches its container: any interleaving of the containers' leases.
 */

const BOUNDARY_MS = Date.UTC(2026, 0, 31, 12, 0, 0);
const WINDOW: CounterWindow = {
  windowSeconds: 60,
  windowStartEpochSeconds: BOUNDARY_MS / 1000,
  expiresAtEpochSeconds: counterExpiresAt(BOUNDARY_MS / 1000, 60),
};

/** The model behind the scheduler: a write waits to reach the table, applies atomically there, then waits to be answered. */
function scheduledCounter(model: InMemoryCounter, scheduler: fc.Scheduler): RateLimitCounter {
  return {
    addWithinLimits: async (keyId: string, window: CounterWindow, adds: readonly TokenAdd[]) => {
      await scheduler.schedule(Promise.resolve(), 'write reaches the table');
      const result = await model.addWithinLimits(keyId, window, adds);
      await scheduler.schedule(Promise.resolve(), 'answer reaches the container');
      return result;
    },
  };
}

const policyOf = (limit: number, leaseBlockMax: number): RateLimitPolicy => ({ name: 'general', limit, windowSeconds: 60, leaseBlockMax });

describe('token leases across containers (property)', () => {
  it('never admit more than the limit together, and leave at most leaseBlockMax - 1 unspent per other container', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.integer({ min: 1, max: 300 }),
        fc.integer({ min: 1, max: 50 }),
        // Per container (2–4), the gaps in ms between its requests: one request at a time, as in Lambda.
        fc.array(fc.array(fc.integer({ min: 0, max: 3_000 }), { maxLength: 150 }), { minLength: 2, maxLength: 4 }),
        async (scheduler, limit, leaseBlockMax, gapsPerContainer) => {
          // Prepare
          const model = new InMemoryCounter();
          const policy = policyOf(limit, leaseBlockMax);
          const containers = gapsPerContainer.map(() => new TokenLeases(scheduledCounter(model, scheduler)));
          const outcomes: LeaseOutcome[] = [];
          const held = (leases: TokenLeases) => leases.heldTokens('key_a', WINDOW, 'general');
          let mostHeld = 0;
          // Act
          const runs = containers.map(async (leases, index) => {
            let nowMs = BOUNDARY_MS;
            for (const gap of gapsPerContainer[index] ?? []) {
              nowMs = Math.min(nowMs + gap, BOUNDARY_MS + 59_999);
              outcomes.push(...(await leases.acquire('key_a', WINDOW, [policy], nowMs)));
              mostHeld = Math.max(mostHeld, held(leases));
            }
          });
          await scheduler.waitFor(Promise.all(runs));
          // Assess
          const admitted = outcomes.filter((outcome) => outcome.admitted).length;
          const count = model.countOf('key_a', 'general', WINDOW.windowStartEpochSeconds);
          const unspent = containers.reduce((sum, leases) => sum + held(leases), 0);
          expect(count).toBeLessThanOrEqual(limit);
          // Every leased token is either spent or still held: none lost, none made up.
          expect(admitted + unspent).toBe(count);
          expect(mostHeld).toBeLessThanOrEqual(leaseBlockMax - 1);
          if (outcomes.some((outcome) => !outcome.admitted)) {
            expect(count).toBe(limit);
            expect(admitted).toBeGreaterThanOrEqual(limit - (containers.length - 1) * (leaseBlockMax - 1));
          }
          // An admitted request is never placed past the limit; a refused one reports none left.
          expect(outcomes.every((outcome) => (outcome.admitted ? outcome.position <= limit : outcome.position === limit + 1))).toBe(true);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('admit exactly what is left to concurrent requests of one container (the local server), each with its own remaining', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.scheduler(),
        fc.integer({ min: 1, max: 200 }),
        fc.integer({ min: 0, max: 200 }),
        fc.integer({ min: 1, max: 120 }),
        async (scheduler, limit, alreadyLeased, burst) => {
          // Prepare
          const model = new InMemoryCounter();
          model.preload('key_a', 'general', WINDOW.windowStartEpochSeconds, Math.min(alreadyLeased, limit));
          const leases = new TokenLeases(scheduledCounter(model, scheduler));
          const policy = policyOf(limit, 50);
          // Act
          const outcomes = (
            await scheduler.waitFor(Promise.all(Array.from({ length: burst }, () => leases.acquire('key_a', WINDOW, [policy], BOUNDARY_MS))))
          ).flat();
          // Assess
          const left = limit - Math.min(alreadyLeased, limit);
          const admitted = outcomes.filter((outcome) => outcome.admitted);
          expect(admitted).toHaveLength(Math.min(burst, left));
          expect(admitted.map((outcome) => outcome.position).sort((a, b) => a - b)).toEqual(
            Array.from({ length: admitted.length }, (_, index) => limit - left + index + 1),
          );
        },
      ),
      { numRuns: 150 },
    );
  });
});
