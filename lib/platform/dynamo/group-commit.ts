/**
 * Group commit: requests for one key that arrive while that key's writes are on their way (or in
 * the same turn of the event loop) go out together in the next write. Idle, a request waits for
 * nothing but the end of the current turn; busy, the requests that pile up behind the writes in
 * flight cost one write between them (docs/performance.md "Webhooks"). Each request learns its
 * own result, or the write's error. Its owner builds one per invocation, never at module scope,
 * so it joins only one invocation's requests, as it could on Lambda (docs/architecture.md).
 */
export class GroupCommit<Entry, Result> {
  private readonly keys = new Map<
    string,
    { queue: { entry: Entry; resolve: (result: Result) => void; reject: (error: unknown) => void }[]; inFlight: number; scheduled: boolean }
  >();

  /**
   * `write` gets the entries of one key in the order they came and answers each one, in that
   * order; at most `maxEntries` go together, and at most `maxInFlight` writes of a key at once.
   */
  constructor(
    private readonly write: (key: string, entries: Entry[]) => Promise<Result[]>,
    private readonly options: { maxEntries?: number; maxInFlight?: number } = {},
  ) {}

  submit(key: string, entry: Entry): Promise<Result> {
    return new Promise<Result>((resolve, reject) => {
      const state = this.keys.get(key) ?? { queue: [], inFlight: 0, scheduled: false };
      this.keys.set(key, state);
      state.queue.push({ entry, resolve, reject });
      this.schedule(key);
    });
  }

  private schedule(key: string): void {
    const state = this.keys.get(key);
    if (!state || state.scheduled || state.queue.length === 0 || state.inFlight >= (this.options.maxInFlight ?? 1)) return;
    state.scheduled = true;
    setImmediate(() => {
      state.scheduled = false;
      while (state.queue.length > 0 && state.inFlight < (this.options.maxInFlight ?? 1))
        void this.flush(key, state, state.queue.splice(0, this.options.maxEntries ?? Number.POSITIVE_INFINITY));
    });
  }

  private async flush(
    key: string,
    state: { inFlight: number; queue: unknown[] },
    taken: { entry: Entry; resolve: (result: Result) => void; reject: (error: unknown) => void }[],
  ): Promise<void> {
    state.inFlight += 1;
    try {
      const results = await this.write(
        key,
        taken.map(({ entry }) => entry),
      );
      taken.forEach(({ resolve }, index) => resolve(results[index] as Result));
    } catch (error) {
      for (const { reject } of taken) reject(error);
    } finally {
      state.inFlight -= 1;
      if (state.queue.length === 0 && state.inFlight === 0) this.keys.delete(key);
      else this.schedule(key);
    }
  }
}
