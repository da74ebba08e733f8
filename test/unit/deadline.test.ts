import { describe, expect, it } from 'vitest';
import { settleWithin } from '../../lib/platform/jobs/deadline.ts';

describe('settleWithin', () => {
  it('returns the value of work that ends in time', async () => {
    expect(
      await settleWithin(
        Promise.resolve(42),
        () => 1000,
        () => undefined,
      ),
    ).toEqual({ overran: false, value: 42 });
  });

  it('rejects with the error of work that fails in time', async () => {
    await expect(
      settleWithin(
        Promise.reject(new Error('boom')),
        () => 1000,
        () => undefined,
      ),
    ).rejects.toThrow('boom');
  });

  it('gives up on work still running at the deadline, and hands its later failure to onLateError', async () => {
    // Prepare: work that fails only after the deadline; the clock runs out after 50 ms
    const start = Date.now();
    let fail: (error: Error) => void = () => undefined;
    const work = new Promise<number>((_resolve, reject) => (fail = reject));
    const late: unknown[] = [];

    // Act
    const result = await settleWithin(
      work,
      () => 50 - (Date.now() - start),
      (error) => late.push(error),
      10,
    );
    fail(new Error('late'));
    await new Promise((resolve) => setTimeout(resolve, 0));

    // Assess
    expect(result).toEqual({ overran: true });
    expect(late).toEqual([new Error('late')]);
  });
});
