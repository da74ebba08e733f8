import type { InventoryClient } from '../create-client.ts';
import type { ExportDownloadUrl, ExportJob } from '../types.ts';
import { unwrap } from '../unwrap.ts';

/** An export to run (docs/exports.md): `GET /v1/exports/kinds` lists the kinds and their filters. */
export interface ExportRequest {
  kind: string;
  format?: 'csv' | 'jsonl';
  filters?: Record<string, string | boolean>;
  /** A key of your own, e.g. to make a resubmission after a crash replay the first export. */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

export interface ExportWaitOptions {
  /** Called after every poll with the job (its status and the rows written so far). */
  onProgress?: (job: ExportJob) => void;
  initialDelayMs?: number;
  maxDelayMs?: number;
  signal?: AbortSignal;
}

/** POST /v1/exports: the queued export. */
export async function submitExport(client: InventoryClient, request: ExportRequest): Promise<ExportJob> {
  return unwrap(
    client.api.POST('/v1/exports', {
      params: { header: { 'Idempotency-Key': request.idempotencyKey ?? crypto.randomUUID() } },
      body: { kind: request.kind, format: request.format ?? 'csv', filters: request.filters ?? {} },
      signal: request.signal,
    }),
  );
}

/** Polls GET /v1/exports/{id} until the export has succeeded or failed; the pause grows while nothing moves. */
export async function waitForExport(client: InventoryClient, exportId: string, options: ExportWaitOptions = {}): Promise<ExportJob> {
  const maxDelayMs = options.maxDelayMs ?? 5000;
  let delayMs = options.initialDelayMs ?? 250;
  let lastState = '';
  for (;;) {
    const job = await unwrap(client.api.GET('/v1/exports/{id}', { params: { path: { id: exportId } }, signal: options.signal }));
    options.onProgress?.(job);
    if (job.status === 'succeeded' || job.status === 'failed') return job;
    const state = `${job.status} ${job.rowCount}`;
    delayMs = state === lastState ? Math.min(maxDelayMs, Math.ceil(delayMs * 1.5)) : delayMs;
    lastState = state;
    await client.sleep(delayMs, options.signal);
  }
}

/** GET /v1/exports/{id}/download-url: a fresh presigned link (15 minutes). */
export async function exportDownloadUrl(client: InventoryClient, exportId: string, signal?: AbortSignal): Promise<ExportDownloadUrl> {
  return unwrap(client.api.GET('/v1/exports/{id}/download-url', { params: { path: { id: exportId } }, signal }));
}
