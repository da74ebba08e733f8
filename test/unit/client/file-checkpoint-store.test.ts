import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as nodeFs from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileCheckpointStore } from '../../../client/node.ts';

/** The file checkpoint store writes atomically: temp file, flush, rename (docs/client.md#checkpointing). */

let directory: string;
let path: string;

beforeEach(() => {
  directory = mkdtempSync(join(tmpdir(), 'client-checkpoint-'));
  path = join(directory, 'feed.checkpoint.json');
});

afterEach(() => rmSync(directory, { recursive: true, force: true }));

describe('FileCheckpointStore', () => {
  it('loads nothing before the first save, then the last cursor saved, and nothing after clear', async () => {
    // Prepare
    const store = new FileCheckpointStore(path);
    // Act
    const before = await store.load();
    await store.save('c1');
    await store.save('c2');
    const saved = await new FileCheckpointStore(path).load();
    await store.clear();
    // Assess
    expect(before).toBeUndefined();
    expect(saved).toBe('c2');
    expect(await store.load()).toBeUndefined();
    expect(readdirSync(directory)).toEqual([]);
  });

  it('leaves no temporary file behind', async () => {
    const store = new FileCheckpointStore(path);
    for (let index = 0; index < 20; index += 1) await store.save(`c${index}`);
    expect(readdirSync(directory)).toEqual(['feed.checkpoint.json']);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ cursor: 'c19', savedAt: expect.any(String) });
  });

  it('keeps the previous checkpoint whole when the write fails before the rename', async () => {
    // Prepare: a file system whose rename fails, as a crash between write and rename would leave it
    const store = new FileCheckpointStore(path);
    await store.save('c1');
    const failing = new FileCheckpointStore(path, {
      ...nodeFs,
      rename: async () => {
        throw new Error('disk gone');
      },
    });
    // Act
    const error = await failing.save('c2').catch((caught: unknown) => caught);
    // Assess
    expect(error).toMatchObject({ message: 'disk gone' });
    expect(await store.load()).toBe('c1');
    expect(readdirSync(directory)).toEqual(['feed.checkpoint.json']);
  });

  it('never shows a reader a torn file while saves replace it', async () => {
    // Prepare: long cursors make a torn write likely to show if the file were written in place
    const store = new FileCheckpointStore(path);
    await store.save('c'.repeat(50_000));
    let reading = true;
    const seen = new Set<string>();
    const reader = (async () => {
      while (reading) {
        seen.add((await store.load()) ?? 'none');
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    // Act
    for (let index = 0; index < 100; index += 1) await store.save(String(index % 10).repeat(50_000));
    reading = false;
    await reader;
    // Assess: every read parsed (load throws on a torn file) and was one of the saved cursors
    for (const cursor of seen) expect(cursor).toMatch(/^(c+|0+|1+|2+|3+|4+|5+|6+|7+|8+|9+)$/);
  });

  it('refuses a file that holds no cursor instead of starting over', async () => {
    writeFileSync(path, '{"cursor":');
    await expect(new FileCheckpointStore(path).load()).rejects.toThrow();
    writeFileSync(path, '{}');
    await expect(new FileCheckpointStore(path).load()).rejects.toThrow('holds no cursor');
  });
});
