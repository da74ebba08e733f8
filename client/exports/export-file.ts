import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { InventoryClient } from '../create-client.ts';
import type { ExportJob } from '../types.ts';
import { exportDownloadUrl, submitExport, waitForExport, type ExportRequest, type ExportWaitOptions } from './submit-export.ts';

export interface ExportFileResult {
  job: ExportJob;
  /** Where the file was written; absent when the export failed. */
  path?: string;
  bytes: number;
}

/**
 * Submits an export, waits for it while reporting progress, and streams the file to `path`
 * through its presigned link (never held in memory). A failed export writes nothing: its
 * `failure` says why.
 */
export async function exportFile(client: InventoryClient, request: ExportRequest & ExportWaitOptions & { path: string }): Promise<ExportFileResult> {
  const queued = await submitExport(client, request);
  const job = await waitForExport(client, queued.id, request);
  if (job.status !== 'succeeded') return { job, bytes: 0 };
  const link = await exportDownloadUrl(client, job.id, request.signal);
  // The link is S3's, not the API's: fetched directly, without the API key.
  const response = await fetch(link.url, { signal: request.signal ?? null });
  if (!response.ok || !response.body) throw new Error(`Downloading export ${job.id} failed with HTTP ${response.status}`);
  await pipeline(Readable.fromWeb(response.body as NodeReadableStream<Uint8Array>), createWriteStream(request.path));
  return { job, path: request.path, bytes: link.sizeBytes };
}
