import { describe, expect, it } from 'vitest';
import { counterExpiresAt } from '../../../lib/platform/rate-limit/fixed-window.ts';
import type { RateLimitPolicy } from '../../../lib/platform/rate-limit/fixed-window.ts';
import { BUSY_MS, leaseTokens, TokenLeases } from '../../../lib/platform/rate-limit/token-leases.ts';
import { InMemoryCounter } from './in-memory-counter.ts';

/** Token leases in one container against the counter model (test/unit/rate-limit/in-memory-counter.ts). */

/** 2026-01-31T12:00:00Z, a window boundary. */
const BOUNDARY_MS = Date.UTC(2026, 0, 31, 12, 0, 0);
const BOUNDARY_S = BOUNDARY_MS / 1000;
const windowAt = (start: number) => ({ windowSeconds: 60, windowStartEpochSeconds: start, expiresAtEpochSeconds: counterExpiresAt(start, 60) });
const WINDOW = windowAt(BOUNDARY_S);

const GENERAL: RateLimitPolicy = { name: 'general', limit: 1200, windowSeconds: 60, leaseBlockMax: 50 };
const SUBMISSION: RateLimitPolicy = { name: 'submission', limit: 20, windowSeconds: 60 };

const appliedBlocks = (counter: InMemoryCounter, policy = 'general') =>
  counter.calls.filter((call) => call.applied).flatMap((call) => call.adds.filter((add) => add.policy === policy).map((add) => add.tokens));

describe('TokenLeases in one container', () => {
  it('admits the 1,200th request and refuses the 1,201st, counting down remaining one by one', async () => {
    // Prepare
    const counter = new InMemoryCounter();
    const leases = new TokenLeases(counter);
    // Act: one request every 10 ms, all within the window (12 s).
    const outcomes = [];
    for (let index = 0; index < 1201; index += 1) outcomes.push(...(await leases.acquire('key_a', WINDOW, [GENERAL], BOUNDARY_MS + index * 10)));
    // Assess
    expect(outcomes.slice(0, 1200).every((outcome) => outcome.admitted)).toBe(true);
    expect(outcomes.slice(0, 1200).map((outcome) => GENERAL.limit - outcome.position)).toEqual(Array.from({ length: 1200 }, (_, index) => 1199 - index));
    expect(outcomes[1200]).toEqual({ admitted: false, position: 1201 });
    expect(counter.countOf('key_a', 'general', BOUNDARY_S)).toBe(1200);
    // Blocks double while busy up to 50; near the limit the lease takes exactly what is left (37).
    expect(appliedBlocks(counter)).toEqual([1, 2, 4, 8, 16, 32, ...Array<number>(22).fill(50), 37]);
    // 29 writes instead of 1,200; the two failed conditions are the 37's first try and the 1,201st.
    expect(counter.calls.filter((call) => !call.applied)).toHaveLength(2);
  });

  it('answers later requests of a spent window without another write', async () => {
    // Prepare
    const counter = new InMemoryCounter();
    counter.preload('key_a', 'general', BOUNDARY_S, 1200);
    const leases = new TokenLeases(counter);
    await leases.acquire('key_a', WINDOW, [GENERAL], BOUNDARY_MS);
    const callsAfterFirstRefusal = counter.calls.length;
    // Act
    const [outcome] = await leases.acquire('key_a', WINDOW, [GENERAL], BOUNDARY_MS + 1000);
    // Assess
    expect(outcome).toEqual({ admitted: false, position: 1201 });
    expect(counter.calls).toHaveLength(callsAfterFirstRefusal);
  });

  it('leases exactly what is left near the limit, never past it', async () => {
    // Prepare: 1190 leased elsewhere; this container's next block would be 16.
    const counter = new InMemoryCounter();
    const leases = new TokenLeases(counter);
    for (let index = 0; index < 15; index += 1) await leases.acquire('key_a', WINDOW, [GENERAL], BOUNDARY_MS);
    counter.preload('key_a', 'general', BOUNDARY_S, 1190);
    // Act
    const outcomes = [];
    for (let index = 0; index < 12; index += 1) outcomes.push(...(await leases.acquire('key_a', WINDOW, [GENERAL], BOUNDARY_MS + 100)));
    // Assess
    expect(counter.calls.slice(-3).map((call) => [call.adds[0]?.tokens, call.applied])).toEqual([
      [16, false],
      [10, true],
      [32, false],
    ]);
    expect(outcomes.map((outcome) => outcome.admitted)).toEqual([...Array<boolean>(10).fill(true), false, false]);
    expect(counter.countOf('key_a', 'general', BOUNDARY_S)).toBe(1200);
  });

  it('halves the block when the last one lasted longer than BUSY_MS', async () => {
    // Prepare: blocks 1, 2, 4, 8 while busy (15 requests).
    const counter = new InMemoryCounter();
    const leases = new TokenLeases(counter);
    for (let index = 0; index < 15; index += 1) await leases.acquire('key_a', WINDOW, [GENERAL], BOUNDARY_MS);
    // Act: the 8 lasted longer than BUSY_MS.
    await leases.acquire('key_a', WINDOW, [GENERAL], BOUNDARY_MS + BUSY_MS);
    // Assess
    expect(appliedBlocks(counter)).toEqual([1, 2, 4, 8, 4]);
  });

  it('starts over in the next window: count, block and remaining', async () => {
    // Prepare: a busy window with a 16-block leased.
    const counter = new InMemoryCounter();
    const leases = new TokenLeases(counter);
    for (let index = 0; index < 20; index += 1) await leases.acquire('key_a', WINDOW, [GENERAL], BOUNDARY_MS + 59_000);
    // Act
    const [outcome] = await leases.acquire('key_a', windowAt(BOUNDARY_S + 60), [GENERAL], BOUNDARY_MS + 60_000);
    // Assess
    expect(outcome).toEqual({ admitted: true, position: 1 });
    expect(counter.calls.at(-1)).toMatchObject({ adds: [{ policy: 'general', tokens: 1 }], windowStart: BOUNDARY_S + 60, applied: true });
    expect(leases.heldTokens('key_a', WINDOW, 'general')).toBe(11);
    expect(leases.heldTokens('key_a', windowAt(BOUNDARY_S + 60), 'general')).toBe(0);
  });

  it('keeps the submission limit exact: one token per request, both policies in one write', async () => {
    // Prepare
    const counter = new InMemoryCounter();
    const leases = new TokenLeases(counter);
    // Act
    const outcomes = [];
    for (let index = 0; index < 21; index += 1) outcomes.push(await leases.acquire('key_a', WINDOW, [GENERAL, SUBMISSION], BOUNDARY_MS + index));
    // Assess
    expect(appliedBlocks(counter, 'submission')).toEqual(Array<number>(20).fill(1));
    expect(counter.calls[0]?.adds).toEqual([
      { policy: 'general', tokens: 1 },
      { policy: 'submission', tokens: 1 },
    ]);
    expect(outcomes.slice(0, 20).every(([general, submission]) => general?.admitted && submission?.admitted)).toBe(true);
    // The 21st is refused by the submission limit but still takes its general token.
    expect(outcomes[20]).toEqual([
      { admitted: true, position: 21 },
      { admitted: false, position: 21 },
    ]);
    expect(counter.countOf('key_a', 'submission', BOUNDARY_S)).toBe(20);
  });

  it('forgets the least recently used key window beyond its bound', async () => {
    // Prepare
    const leases = new TokenLeases(new InMemoryCounter(), 2);
    for (let index = 0; index < 2; index += 1) await leases.acquire('key_a', WINDOW, [GENERAL], BOUNDARY_MS);
    await leases.acquire('key_b', WINDOW, [GENERAL], BOUNDARY_MS);
    // Act
    await leases.acquire('key_c', WINDOW, [GENERAL], BOUNDARY_MS);
    // Assess: key_a's unspent token is gone (never spent: at worst an early refusal, never an extra request).
    expect(leases.heldTokens('key_a', WINDOW, 'general')).toBe(0);
  });

  it('lets every waiter see a failed lease, and the next request lease again', async () => {
    // Prepare
    const counter = new InMemoryCounter();
    let failing = true;
    const leases = new TokenLeases({
      addWithinLimits: async (...args) => {
        if (failing) throw new Error('ProvisionedThroughputExceededException');
        return counter.addWithinLimits(...args);
      },
    });
    // Act
    const failed = await Promise.allSettled([0, 1, 2].map(() => leases.acquire('key_a', WINDOW, [GENERAL], BOUNDARY_MS)));
    failing = false;
    const [after] = await leases.acquire('key_a', WINDOW, [GENERAL], BOUNDARY_MS);
    // Assess
    expect(failed.map((result) => result.status)).toEqual(['rejected', 'rejected', 'rejected']);
    expect(after).toEqual({ admitted: true, position: 1 });
  });
});

describe('leaseTokens', () => {
  it('takes the whole block in one write while it fits', async () => {
    // Prepare
    const counter = new InMemoryCounter();
    // Act
    const grants = await leaseTokens([{ policy: 'general', limit: 100, tokens: 50 }], (adds) => counter.addWithinLimits('key_a', WINDOW, adds));
    // Assess
    expect(grants.get('general')).toEqual({ granted: 50, count: 50 });
    expect(counter.calls).toHaveLength(1);
  });

  it('drops a spent policy and leases the others', async () => {
    // Prepare
    const counter = new InMemoryCounter();
    counter.preload('key_a', 'submission', BOUNDARY_S, 20);
    counter.preload('key_a', 'general', BOUNDARY_S, 40);
    // Act
    const grants = await leaseTokens(
      [
        { policy: 'general', limit: 100, tokens: 8 },
        { policy: 'submission', limit: 20, tokens: 1 },
      ],
      (adds) => counter.addWithinLimits('key_a', WINDOW, adds),
    );
    // Assess
    expect(grants.get('general')).toEqual({ granted: 8, count: 48 });
    expect(grants.get('submission')).toEqual({ granted: 0, count: 20 });
    expect(counter.calls.map((call) => call.applied)).toEqual([false, true]);
  });

  it('follows a counter that others keep raising until the window is spent', async () => {
    // Prepare: another container takes 3 tokens before each of this one's writes.
    const counter = new InMemoryCounter();
    const contended = async (adds: Parameters<InMemoryCounter['addWithinLimits']>[2]) => {
      await counter.addWithinLimits('key_a', WINDOW, [{ policy: 'general', limit: 10, tokens: 3 }]);
      return counter.addWithinLimits('key_a', WINDOW, adds);
    };
    // Act
    const grants = await leaseTokens([{ policy: 'general', limit: 10, tokens: 8 }], contended);
    // Assess: at 3, 8 do not fit (7 left); at 6, 7 do not (4 left); at 9, 4 do not (1 left); the
    // other's next 3 do not fit, this 1 does.
    expect(grants.get('general')).toEqual({ granted: 1, count: 10 });
    expect(counter.countOf('key_a', 'general', BOUNDARY_S)).toBe(10);
  });
});
