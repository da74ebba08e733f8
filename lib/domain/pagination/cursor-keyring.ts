import { parseCursorSecret, type CursorKeys } from './cursor-keys.ts';

export interface CursorKeyringOptions {
  /** Reads the secret's current value from its store (one request). */
  fetchSecret: () => Promise<string>;
  /** A container re-reads the secret once this old, so that a rotation reaches every container in bounded time. */
  refreshAfterMs: number;
  /** After a failed read, the next attempt waits this long (the keys in hand stay in force meanwhile). */
  retryAfterMs?: number;
  onRefreshFailed?: (error: unknown) => void;
  now?: () => number;
}

/**
 * The cursor keys of one container (docs/operations.md#cursor-secret): read from the secret store
 * once at cold start, then again at most every `refreshAfterMs`, and only when a request uses
 * them. A refresh runs in the background: the request that triggers it still uses the keys in
 * hand, so no request waits on the store after the cold start, and a failed refresh keeps them.
 */
export class CursorKeyring {
  private current: CursorKeys | undefined;
  private nextReadAt = 0;
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
  readonly keys = (): CursorKeys => {
    if (this.now() >= this.nextReadAt && !this.reading) {
      this.reading = this.read().finally(() => {
        this.reading = undefined;
      });
    }
    if (!this.current) throw new Error('The cursor secret could not be read yet');
    return this.current;
  };

  private async read(): Promise<void> {
    try {
      this.current = parseCursorSecret(await this.options.fetchSecret());
      this.nextReadAt = this.now() + this.options.refreshAfterMs;
    } catch (error) {
      this.nextReadAt = this.now() + (this.options.retryAfterMs ?? Math.min(this.options.refreshAfterMs, 10_000));
      this.options.onRefreshFailed?.(error);
    }
  }
}
