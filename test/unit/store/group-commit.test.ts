import { describe, expect, it } from 'vitest';
import { GroupCommit } from '../../../lib/platform/dynamo/group-commit.ts';

/** Group commit (lib/platform/dynamo/group-commit.ts): what meets in a turn, or behind a write, goes out together. */
function recorder(options: { failKey?: string; maxEntries?: number; maxInFlight?: number } = {}) {
  const writes: { key: string; entries: number[] }[] = [];
  const held: (() => void)[] = [];
  const gate = { held: false };
  const commit = new GroupCommit<number, string>(async (key, entries) => {
    writes.push({ key, entries });
    if (gate.held) await new Promise<void>((resolve) => held.push(resolve));
    if (key === options.failKey) throw new Error(`write of ${key} failed`);
    return entries.map((entry) => `${key}:${entry}`);
  }, options);
  return { commit, writes, gate, open: () => held.splice(0).forEach((resolve) => resolve()) };
}

describe('GroupCommit', () => {
  it('entries of one key submitted in one turn go in one write, each answered with its own result', async () => {
    const { commit, writes } = recorder();
    const results = await Promise.all([commit.submit('a', 1), commit.submit('a', 2), commit.submit('b', 3), commit.submit('a', 4)]);
    expect(results).toEqual(['a:1', 'a:2', 'b:3', 'a:4']);
    expect(writes).toEqual([
      { key: 'a', entries: [1, 2, 4] },
      { key: 'b', entries: [3] },
    ]);
  });

  it('entries that arrive while a write of their key is on its way wait for it, then go together', async () => {
    const { commit, writes, gate, open } = recorder();
    gate.held = true;
    const first = commit.submit('a', 1);
    await new Promise((resolve) => setImmediate(resolve));
    expect(writes).toHaveLength(1);
    const later = [commit.submit('a', 2), commit.submit('a', 3)];
    await new Promise((resolve) => setTimeout(resolve, 5));
    // Still one write: the second waits for the first to end.
    expect(writes).toHaveLength(1);
    gate.held = false;
    open();
    expect(await Promise.all([first, ...later])).toEqual(['a:1', 'a:2', 'a:3']);
    expect(writes.map((write) => write.entries)).toEqual([[1], [2, 3]]);
  });

  it("a failed write rejects only its own entries; the key's next write goes on", async () => {
    const { commit, writes } = recorder({ failKey: 'bad', maxEntries: 2 });
    const outcomes = await Promise.allSettled([commit.submit('bad', 1), commit.submit('bad', 2), commit.submit('good', 3)]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected', 'fulfilled']);
    expect(await commit.submit('good', 4)).toBe('good:4');
    expect(writes.map((write) => write.key)).toEqual(['bad', 'good', 'good']);
  });

  it('at most maxEntries go in one write; the rest follow in the next', async () => {
    const { commit, writes } = recorder({ maxEntries: 2 });
    await Promise.all([1, 2, 3, 4, 5].map((entry) => commit.submit('a', entry)));
    expect(writes.map((write) => write.entries)).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('up to maxInFlight writes of one key go at once, each with what was queued when it left', async () => {
    const { commit, writes, gate, open } = recorder({ maxEntries: 2, maxInFlight: 2 });
    gate.held = true;
    const all = [1, 2, 3, 4, 5].map((entry) => commit.submit('a', entry));
    await new Promise((resolve) => setTimeout(resolve, 5));
    // Two writes out, the fifth entry waiting for one of them.
    expect(writes.map((write) => write.entries)).toEqual([
      [1, 2],
      [3, 4],
    ]);
    gate.held = false;
    open();
    expect(await Promise.all(all)).toEqual(['a:1', 'a:2', 'a:3', 'a:4', 'a:5']);
    expect(writes.map((write) => write.entries)).toEqual([[1, 2], [3, 4], [5]]);
  });
});
