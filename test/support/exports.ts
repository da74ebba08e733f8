import { randomUUID } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import { expect } from 'vitest';
import type { ExportJob } from '../../lib/exports/domain/job.ts';
import { callApi } from './api.ts';

/** Helpers of the export suites (docs/exports.md): submit, wait, download through the presigned link. */

export interface ExportSubmission {
  kind: string;
  format?: 'csv' | 'jsonl';
  filters?: Record<string, unknown>;
}

export async function postExport(key: string, body: unknown, idempotencyKey: string | null = randomUUID()): Promise<Response> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (idempotencyKey !== null) headers['idempotency-key'] = idempotencyKey;
  return callApi('/v1/exports', { method: 'POST', key, headers, body: JSON.stringify(body) });
}

export async function getExport(key: string, id: string): Promise<ExportJob> {
  const response = await callApi(`/v1/exports/${id}`, { key });
  const body = (await response.json()) as ExportJob;
  expect(response.status, JSON.stringify(body)).toBe(200);
  return body;
}

export async function waitForExport(key: string, id: string, timeoutMs = 60_000): Promise<ExportJob> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = await getExport(key, id);
    if (job.status === 'succeeded' || job.status === 'failed') return job;
    if (Date.now() > deadline) throw new Error(`Export ${id} still ${job.status} after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Submits (expects 202), waits for success and downloads the file through the presigned link. */
export async function exportAndDownload(
  key: string,
  submission: ExportSubmission,
): Promise<{ job: ExportJob; content: string; download: { url: string; fileName: string; contentType: string; sizeBytes: number } }> {
  const response = await postExport(key, submission);
  const accepted = (await response.json()) as ExportJob;
  expect(response.status, JSON.stringify(accepted)).toBe(202);
  const job = await waitForExport(key, accepted.id);
  expect(job.status, JSON.stringify(job.failure)).toBe('succeeded');
  const linkResponse = await callApi(`/v1/exports/${job.id}/download-url`, { key });
  const download = (await linkResponse.json()) as { url: string; fileName: string; contentType: string; sizeBytes: number };
  expect(linkResponse.status, JSON.stringify(download)).toBe(200);
  const file = await fetch(download.url);
  expect(file.status).toBe(200);
  return { job, content: await file.text(), download };
}

/** The CSV's records as objects by header (strings as written). */
export function csvRecords(content: string): Record<string, string>[] {
  return parse(content, { columns: true, relax_column_count: false }) as Record<string, string>[];
}

export function jsonlRecords(content: string): Record<string, unknown>[] {
  return content
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}
