/**
 * Where a feed consumer keeps its position: the `nextCursor` of the last page it has processed
 * (docs/client.md#checkpointing). Implement it over your own database to checkpoint in the same
 * transaction as the changes the events caused.
 */
export interface CheckpointStore {
  /** The saved cursor, or undefined before the first save (the feed then starts at its oldest event). */
  load(): Promise<string | undefined>;
  save(cursor: string): Promise<void>;
  /** Forgets the cursor, e.g. to recover from CursorExpiredError. */
  clear(): Promise<void>;
}

/** A checkpoint that lives as long as the process: for tests and one-off reads. */
export class MemoryCheckpointStore implements CheckpointStore {
  constructor(private cursor?: string) {}

  async load(): Promise<string | undefined> {
    return this.cursor;
  }

  async save(cursor: string): Promise<void> {
    this.cursor = cursor;
  }

  async clear(): Promise<void> {
    this.cursor = undefined;
  }
}
