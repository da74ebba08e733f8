import { openAsBlob } from 'node:fs';
import { basename } from 'node:path';

/** The Node-only part of the client (docs/client.md#install): checkpoints on disk, files from disk. */
export { FileCheckpointStore, type CheckpointFileSystem } from './feed/file-checkpoint-store.ts';
/** Exports to a file on disk (docs/exports.md). */
export { exportFile, type ExportFileResult } from './exports/export-file.ts';

/** A file on disk as a File for an upload, named after it; its bytes are read only when sent. */
export async function fileFromPath(path: string, type = 'text/csv'): Promise<File> {
  return new File([await openAsBlob(path)], basename(path), { type });
}
