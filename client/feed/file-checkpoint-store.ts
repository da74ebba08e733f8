import { randomUUID } from 'node:crypto';
import * as nodeFs from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { CheckpointStore } from './checkpoint-store.ts';

/** The few file operations the store needs; a test can make one of them fail. */
export interface CheckpointFileSystem {
  readFile(path: string, encoding: 'utf8'): Promise<string>;
  open(path: string, flags: string): Promise<nodeFs.FileHandle>;
  rename(from: string, to: string): Promise<void>;
  rm(path: string, options: { force: boolean }): Promise<void>;
}

interface CheckpointFile {
  cursor: string;
  savedAt: string;
}

/**
 * A checkpoint in a JSON file, replaced atomically (docs/client.md#checkpointing): the new content
 * goes to a temporary file in the same directory, is flushed to disk, and is renamed over the old
 * one. A crash at any point leaves either the previous checkpoint or the new one, never a torn file.
 */
export class FileCheckpointStore implements CheckpointStore {
  constructor(
    readonly path: string,
    private readonly fs: CheckpointFileSystem = nodeFs,
  ) {}

  async load(): Promise<string | undefined> {
    let text: string;
    try {
      text = await this.fs.readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    // A file that does not parse is not silently taken as "start from the oldest event".
    const parsed = JSON.parse(text) as Partial<CheckpointFile>;
    if (typeof parsed.cursor !== 'string' || parsed.cursor === '') throw new Error(`${this.path} holds no cursor`);
    return parsed.cursor;
  }

  async save(cursor: string): Promise<void> {
    const content: CheckpointFile = { cursor, savedAt: new Date().toISOString() };
    const temporary = join(dirname(this.path), `.${basename(this.path)}.${randomUUID()}.tmp`);
    try {
      const handle = await this.fs.open(temporary, 'wx');
      try {
        await handle.writeFile(`${JSON.stringify(content)}\n`, 'utf8');
        await handle.sync();
      } finally {
        await handle.close();
      }
      await this.fs.rename(temporary, this.path);
    } catch (error) {
      await this.fs.rm(temporary, { force: true });
      throw error;
    }
    await this.syncDirectory();
  }

  async clear(): Promise<void> {
    await this.fs.rm(this.path, { force: true });
  }

  /** Makes the rename itself durable; some platforms cannot open a directory, which is no error. */
  private async syncDirectory(): Promise<void> {
    let directory: nodeFs.FileHandle | undefined;
    try {
      directory = await this.fs.open(dirname(this.path), 'r');
      await directory.sync();
    } catch {
      // Best effort only.
    } finally {
      await directory?.close();
    }
  }
}
