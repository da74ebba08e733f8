/**
 * Group commit: requests for one key that arrive while that key's write is on its way (or in the
 * same turn of the event loop) go out together in the next write. Idle, a request waits for
 * nothing but the end of the current turn; busy, the requests that pile up behind a write cost
 * one write between them (docs/performance.md "Webhooks"). Each request learns its own result,
 * or the write's error.
 */
export class GroupCommit<Entry, Result> {
  private readonly queued = new Map<string, { entry: Entry; resolve: (result: Result) => void; reject: (error: unknown) => void }[]>();
  private readonly busy = new Set<string>();

  /**
   * `write` gets the entries of one key in the order they came and answers each one, in that
   * order; at most `maxEntries` go together.
   */
  constructor(
    private readonly write: (key: string, entries: Entry[]) => Promise<Result[]>,
    private readonly maxEntries = Number.POSITIVE_INFINITY,
  ) {}

  submit(key: string, entry: Entry): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      const queue = this.queued.get(key);
      if (queue) {
        queue.push({ entry, resolve, reject });
        return;
      }
      this.queued.set(key, [{ entry, resolve, reject }]);
      if (!this.busy.has(key)) this.schedule(key);
    });
  }

  private schedule(key: string): void {
    this.busy.add(key);
    setImmediate(() => void this.flush(key));
  }

  private async flush(key: string): Promise<void> {
    const queue = this.queued.get(key) ?? [];
    const taken = queue.splice(0, this.maxEntries);
    if (queue.length === 0) this.queued.delete(key);
    try {
      const results = await this.write(
        key,
        taken.map(({ entry }) => entry),
      );
      taken.forEach(({ resolve }, index) => resolve(results[index] as Result));
    } catch (error) {
      for (const { reject } of taken) reject(error);
    } finally {
      if (this.queued.has(key)) this.schedule(key);
      else this.busy.delete(key);
    }
  }
}
