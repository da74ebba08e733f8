import type { CursorKeySource } from './cursor.ts';
import { parseCursorSecret, type CursorKeys } from './cursor-keys.ts';

export interface CursorKeyringOptions {
  /** Reads the secret's current value from its store (one request). */
  fetchSecret: () => Promise<string>;
  /** A container re-reads the secret once this old, so that a rotation reaches every container in bounded time. */
  refreshAfterMs: number;
  /** After a failed read, the next attempt waits this long (the keys in hand stay in force meanwhile). */
  retryAfterMs?: number;
  /**
   * A cursor that matches no key in hand makes the keyring read again, but not twice within
   * this long: forged cursors must not turn into a read of the secret each.
   */
  mismatchRereadAfterMs?: number;
  onRefreshFailed?: (error: unknown) => void;
  now?: () => number;
}

const DEFAULT_MISMATCH_REREAD_AFTER_MS = 30_000;

/**
 * The cursor keys of one container (docs/operations.md#cursor-secret): read from the secret store
 * once at cold start, then again at most every `refreshAfterMs`, and only when a request uses
 * them. That refresh runs in the background: the request that triggers it still uses the keys in
 * hand, so no request waits on the store after the cold start, and a failed refresh keeps them.
 * The one wait: a cursor no key in hand signed (a container idle since before a rotation was
 * announced) makes its request read the keys again before the cursor is refused.
 */
export class CursorKeyring implements CursorKeySource {
  private current: CursorKeys | undefined;
  private nextReadAt = 0;
  private lastAttemptAt = Number.NEGATIVE_INFINITY;
  private reading: Promise<void> | undefined;
  private readonly now: () => number;

  private constructor(private readonly options: CursorKeyringOptions) {
    this.now = options.now ?? Date.now;
  }

  /**
   * Reads the secret once. Never throws: a container whose first read failed still starts, and
   * its list requests fail (500, until a later read succeeds) instead of the whole function.
   */
  static async load(options: CursorKeyringOptions): Promise<CursorKeyring> {
    const keyring = new CursorKeyring(options);
    await keyring.read();
    return keyring;
  }

  /** The keys in force; starts a background refresh when they are due. Throws when none could be read yet. */
  keys(): CursorKeys {
    if (this.now() >= this.nextReadAt) void this.read();
    if (!this.current) throw new Error('The cursor secret could not be read yet');
    return this.current;
  }

  async rereadAfterMismatch(): Promise<boolean> {
    if (!this.reading && this.now() - this.lastAttemptAt < (this.options.mismatchRereadAfterMs ?? DEFAULT_MISMATCH_REREAD_AFTER_MS)) return false;
    const before = this.current;
    await this.read();
    return this.current !== before && this.current !== undefined;
  }

  /** One read at a time: a caller that comes while one runs shares it. */
  private read(): Promise<void> {
    this.reading ??= this.readOnce().finally(() => {
      this.reading = undefined;
    });
    return this.reading;
  }

  private async readOnce(): Promise<void> {
    this.lastAttemptAt = this.now();
    try {
      this.current = parseCursorSecret(await this.options.fetchSecret());
      this.nextReadAt = this.now() + this.options.refreshAfterMs;
    } catch (error) {
      this.nextReadAt = this.now() + (this.options.retryAfterMs ?? Math.min(this.options.refreshAfterMs, 10_000));
      this.options.onRefreshFailed?.(error);
    }
  }
}
