import type { ApiKeyRecord } from './api-key.ts';
import type { ApiKeyLookup } from './ports.ts';

/**
 * A per-container cache in front of the keys table (docs/operations.md#api-key-cache): a warm
 * container looks a key up once per `ttlSeconds` instead of on every request. Unknown hashes are
 * remembered too, so a flood of forged keys costs one read per distinct key and period. Expiry
 * stays exact (auth checks `expiresAt` on every request); a revocation takes effect within
 * `ttlSeconds`. The cache holds at most `maxEntries` keys, dropping the least recently used.
 */
export class CachedApiKeyLookup implements ApiKeyLookup {
  private readonly entries = new Map<string, { record: ApiKeyRecord | undefined; fetchedAtMs: number }>();

  constructor(
    private readonly source: ApiKeyLookup,
    private readonly ttlSeconds: number,
    private readonly maxEntries = 1000,
    private readonly nowMs: () => number = Date.now,
  ) {}

  async findByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    if (this.ttlSeconds <= 0) return this.source.findByHash(keyHash);
    const cached = this.entries.get(keyHash);
    const now = this.nowMs();
    if (cached && now - cached.fetchedAtMs < this.ttlSeconds * 1000) {
      // Re-inserting moves the hash to the end of the map's order: the most recently used.
      this.entries.delete(keyHash);
      this.entries.set(keyHash, cached);
      return cached.record;
    }
    const record = await this.source.findByHash(keyHash);
    this.entries.delete(keyHash);
    this.entries.set(keyHash, { record, fetchedAtMs: now });
    if (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    return record;
  }
}
