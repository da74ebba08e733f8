import { describe, expect, it } from 'vitest';
import type { ApiKeyRecord } from '../../../lib/platform/auth/api-key.ts';
import { CachedApiKeyLookup } from '../../../lib/platform/auth/cached-key-lookup.ts';

function record(keyHash: string, revokedAt: string | null = null): ApiKeyRecord {
  return {
    keyId: `key_${keyHash}`,
    keyHash,
    organizationId: 'org_a',
    name: 'k',
    scopes: ['labels:read'],
    createdAt: '2026-01-01T00:00:00.000Z',
    revokedAt,
    expiresAt: null,
  };
}

/** A keys table that counts its reads and can be changed under the cache. */
function countingSource(initial: Record<string, ApiKeyRecord>) {
  const table = new Map(Object.entries(initial));
  const reads: string[] = [];
  return {
    table,
    reads,
    findByHash: async (keyHash: string) => {
      reads.push(keyHash);
      return table.get(keyHash);
    },
  };
}

describe('CachedApiKeyLookup', () => {
  it('reads a key once per period, then again once the period is over', async () => {
    // Prepare
    let now = 0;
    const source = countingSource({ a: record('a') });
    const cache = new CachedApiKeyLookup(source, 30, 10, () => now);
    // Act
    const first = await cache.findByHash('a');
    now = 29_999;
    const withinPeriod = await cache.findByHash('a');
    source.table.set('a', record('a', '2026-01-02T00:00:00.000Z'));
    const stillCached = await cache.findByHash('a');
    now = 30_000;
    const afterPeriod = await cache.findByHash('a');
    // Assess
    expect(first?.revokedAt).toBeNull();
    expect(withinPeriod).toEqual(first);
    expect(stillCached?.revokedAt).toBeNull();
    expect(afterPeriod?.revokedAt).toBe('2026-01-02T00:00:00.000Z');
    expect(source.reads).toEqual(['a', 'a']);
  });

  it('remembers unknown hashes for the period too', async () => {
    const source = countingSource({});
    const cache = new CachedApiKeyLookup(source, 30, 10, () => 0);
    expect(await cache.findByHash('forged')).toBeUndefined();
    expect(await cache.findByHash('forged')).toBeUndefined();
    expect(source.reads).toEqual(['forged']);
  });

  it('reads on every request when the period is 0', async () => {
    const source = countingSource({ a: record('a') });
    const cache = new CachedApiKeyLookup(source, 0, 10, () => 0);
    await cache.findByHash('a');
    await cache.findByHash('a');
    expect(source.reads).toEqual(['a', 'a']);
  });

  it('holds at most maxEntries keys, dropping the least recently used', async () => {
    // Prepare
    const source = countingSource({ a: record('a'), b: record('b'), c: record('c') });
    const cache = new CachedApiKeyLookup(source, 30, 2, () => 0);
    await cache.findByHash('a');
    await cache.findByHash('b');
    await cache.findByHash('a');
    // Act: c pushes out b, the least recently used
    await cache.findByHash('c');
    await cache.findByHash('a');
    await cache.findByHash('b');
    // Assess
    expect(source.reads).toEqual(['a', 'b', 'c', 'b']);
  });
});
