import { ImportJobSubmitter } from '../../lib/imports/domain/submit-job.ts';
import type { ImportRecords } from '../../lib/imports/domain/kind-definition.ts';
import { ImportJobProcessor } from '../../lib/imports/domain/pipeline/process-job.ts';
import type { ImportBuilds } from '../../lib/imports/domain/pipeline/job-units.ts';
import type { CommandWriter } from '../../lib/platform/write/ports.ts';
import { BULK_CHUNK_BYTES, bulkChunkActions, storeWriteBytes, type StoreWrite } from '../../lib/platform/dynamo/transaction-writer.ts';
import { createHash, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Context, SQSEvent, SQSRecord } from 'aws-lambda';
import { expect } from 'vitest';
import type { EventEnvelope } from '../../lib/platform/events/types.ts';
import type { ImportJob, ImportJobState, JobStatus } from '../../lib/imports/domain/job.ts';
import type { Item } from '../../lib/inventory/domain/item.ts';
import type { Location } from '../../lib/inventory/domain/location.ts';
import type { DuplicateStrategy, RowError } from '../../lib/imports/domain/types.ts';
import { DryRunOverlaysStore } from '../../lib/imports/store/dry-run-overlays-store.ts';
import { FilesStore } from '../../lib/platform/aws/files-store.ts';
import { ImportJobsStore } from '../../lib/imports/store/import-jobs-store.ts';
import { buildPorts } from '../../lib/builds/store/build-ports.ts';
import { importBuilds } from '../../lib/imports/store/import-builds.ts';
import { ImportRecordsStore } from '../../lib/imports/store/import-records.ts';
import { InventoryStore } from '../../lib/inventory/store/inventory-store.ts';
import { BUCKET_ENV_VAR, IMPORT_QUEUE } from '../../lib/platform/storage/tables.ts';
import { lambdaContext } from '../../local/lambda-event.ts';
import { callApi, fetchApi } from './api.ts';
import { eventFeed, readToTail, tableName, transactionWriter } from './events.ts';

/**
 * Helpers for the import suites: CSV files, multipart submissions over HTTP, polling a job,
 * paging row errors, and (for the worker suite) jobs committed straight into the local stack
 * with the real stores, plus SQS events shaped like the ones Lambda hands the worker.
 */

// ---------------------------------------------------------------------------------------------
// CSV

/** One CSV cell, quoted when it needs to be (comma, quote, line break, surrounding space). */
export function csvCell(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value;
}

/** A CSV file: the header and the rows, LF line endings, a final line break. */
export function csvOf(header: readonly string[], rows: readonly (readonly string[])[]): string {
  return [header, ...rows].map((row) => row.map(csvCell).join(',')).join('\n') + '\n';
}

export const sku = (prefix: string, index: number) => `${prefix}-${String(index).padStart(6, '0')}`;

/** `count` items `sku,name,unit,reorderPoint` with skus `<prefix>-000001`…; row i is sku i. */
export function itemsCsv(count: number, prefix = 'SKU'): string {
  const lines = ['sku,name,unit,reorderPoint'];
  for (let index = 1; index <= count; index += 1) lines.push(`${sku(prefix, index)},Item ${index},ea,${index % 50}`);
  return lines.join('\n') + '\n';
}

export const skusOf = (count: number, prefix = 'SKU') => Array.from({ length: count }, (_, index) => sku(prefix, index + 1));

// ---------------------------------------------------------------------------------------------
// HTTP

export interface Submission {
  kind?: string;
  duplicateStrategy?: string;
  /** The file part; `null` leaves it out. */
  file?: string | Buffer | null;
  fileName?: string;
  /** `null` sends no Idempotency-Key. */
  idempotencyKey?: string | null;
  /** Fields left out of the form. */
  omit?: Array<'kind' | 'duplicateStrategy'>;
  /** The `dryRun` field, as sent; absent unless given. */
  dryRun?: string;
}

/** The multipart form of a submission, as a browser or `curl -F` would send it. */
export function importForm(submission: Submission): FormData {
  const form = new FormData();
  if (!submission.omit?.includes('kind')) form.append('kind', submission.kind ?? 'items');
  if (!submission.omit?.includes('duplicateStrategy')) form.append('duplicateStrategy', submission.duplicateStrategy ?? 'skip');
  if (submission.dryRun !== undefined) form.append('dryRun', submission.dryRun);
  if (submission.file !== null) {
    const content = submission.file ?? 'sku,name\nA,a\n';
    form.append('file', new Blob([typeof content === 'string' ? content : new Uint8Array(content)], { type: 'text/csv' }), submission.fileName ?? 'items.csv');
  }
  return form;
}

/** POST /v1/imports/jobs with a multipart body (callApi takes only string and Buffer bodies). */
export async function postImport(
  key: string,
  body: FormData | Buffer | string,
  headers: Record<string, string> = {},
  idempotencyKey: string | null = randomUUID(),
): Promise<Response> {
  const all: Record<string, string> = { authorization: `Bearer ${key}`, ...headers };
  if (idempotencyKey !== null) all['idempotency-key'] = idempotencyKey;
  // Through fetchApi, so the response is validated against docs/openapi.json like every other.
  return fetchApi('/v1/imports/jobs', { method: 'POST', headers: all, body });
}

export async function submitImport(key: string, submission: Submission = {}): Promise<Response> {
  return postImport(key, importForm(submission), {}, submission.idempotencyKey === undefined ? randomUUID() : submission.idempotencyKey);
}

/** Submits and expects 202; returns the job as answered. */
export async function submitAccepted(key: string, submission: Submission = {}): Promise<ImportJob> {
  const response = await submitImport(key, submission);
  const body = (await response.json()) as ImportJob;
  expect(response.status, JSON.stringify(body)).toBe(202);
  return body;
}

/**
 * A multipart body assembled by hand, for shapes FormData cannot produce. A file name with
 * characters a quoted header value cannot carry (CR, LF, `"`, NUL) goes as RFC 5987 `filename*`,
 * as careful clients send it; the server then sees the name exactly.
 */
export function rawMultipart(
  parts: Array<{ name: string; value: string | Buffer; fileName?: string; contentType?: string }>,
  boundary = `b${randomUUID().replaceAll('-', '')}`,
) {
  const chunks: Buffer[] = [];
  const fileNameParameter = (fileName: string) =>
    /["\r\n]/.test(fileName) || fileName.includes(String.fromCharCode(0))
      ? `; filename*=UTF-8''${encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`
      : `; filename="${fileName}"`;
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.fileName === undefined ? '' : fileNameParameter(part.fileName)}`;
    const type = part.fileName === undefined ? '' : `Content-Type: ${part.contentType ?? 'text/csv'}\r\n`;
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${type}\r\n`), Buffer.from(part.value), Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { body: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

export async function getJob(key: string, jobId: string): Promise<ImportJob> {
  const response = await callApi(`/v1/imports/jobs/${jobId}`, { key });
  const body = (await response.json()) as ImportJob;
  expect(response.status, JSON.stringify(body)).toBe(200);
  return body;
}

const FINISHED: readonly JobStatus[] = ['succeeded', 'completed_with_errors', 'failed'];

/** Polls GET /v1/imports/jobs/{id} until the job has finished. */
export async function waitForJob(key: string, jobId: string, timeoutMs = 30_000, intervalMs = 100): Promise<ImportJob> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = await getJob(key, jobId);
    if (FINISHED.includes(job.status)) return job;
    if (Date.now() > deadline) throw new Error(`Job ${jobId} still ${job.status} after ${timeoutMs} ms: ${JSON.stringify(job.counts)}`);
    await sleep(intervalMs);
  }
}

/** Submits, expects 202 and waits for the job to finish. */
export async function importAndWait(key: string, submission: Submission, timeoutMs?: number): Promise<ImportJob> {
  const accepted = await submitAccepted(key, submission);
  return waitForJob(key, accepted.id, timeoutMs);
}

interface Page<T> {
  data: T[];
  page: { nextCursor: string | null };
}

/** Every row error of a finished job, page by page; also returns the page sizes seen. */
export async function allRowErrors(key: string, jobId: string, limit = 200): Promise<{ errors: RowError[]; pages: number[] }> {
  const errors: RowError[] = [];
  const pages: number[] = [];
  let cursor: string | null = null;
  do {
    const query: string = `limit=${limit}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`;
    const response = await callApi(`/v1/imports/jobs/${jobId}/errors?${query}`, { key });
    const page = (await response.json()) as Page<RowError>;
    expect(response.status, JSON.stringify(page)).toBe(200);
    errors.push(...page.data);
    pages.push(page.data.length);
    cursor = page.page.nextCursor;
  } while (cursor !== null);
  return { errors, pages };
}

/** Row errors without their human-readable messages (those are checked for presence only). */
export function errorKeys(errors: readonly RowError[]) {
  return errors.map(({ message, ...rest }) => {
    expect(message.length).toBeGreaterThan(0);
    return rest;
  });
}

// ---------------------------------------------------------------------------------------------
// The local stack's stores (configured by test/support/stack-env.ts)

export const importJobsStore = () => new ImportJobsStore(tableName('inventory'));
export const inventoryRecords = () => new InventoryStore(tableName('inventory'));
/** The import pipeline's records port on the local stack. */
export const importRecords = () => new ImportRecordsStore(tableName('inventory'));
/** Where the worker keeps dry runs' overlays on the local stack (the files bucket). */
export const dryRunOverlaysStore = () => new DryRunOverlaysStore(bucketName());
export const filesStore = () => new FilesStore(bucketName());
const bucketName = () => {
  const bucket = process.env[BUCKET_ENV_VAR];
  if (!bucket) throw new Error(`${BUCKET_ENV_VAR} is not set; is test/support/stack-env.ts a setup file?`);
  return bucket;
};

export async function itemsOf(organizationId: string, skus: readonly string[]): Promise<Map<string, { record: Item; version: number }>> {
  return inventoryRecords().getByNaturalKeys(organizationId, 'item', skus);
}

export async function locationsOf(organizationId: string, codes: readonly string[]): Promise<Map<string, { record: Location; version: number }>> {
  return inventoryRecords().getByNaturalKeys(organizationId, 'location', codes);
}

/** Every event of the organization's feed, oldest first. */
export async function feedOf(organizationId: string): Promise<EventEnvelope[]> {
  return (await readToTail(eventFeed(), organizationId, { limit: 200 })).events;
}

/** How many events of `type` the feed holds per sku (item events carry `data.item.sku`). */
export function countPerSku(events: readonly EventEnvelope[], type: 'item.created' | 'item.updated'): Map<string, number> {
  const counts = new Map<string, number>();
  for (const event of events) {
    if (event.type !== type) continue;
    const itemSku = (event.data.item as Item).sku;
    counts.set(itemSku, (counts.get(itemSku) ?? 0) + 1);
  }
  return counts;
}

export interface CommittedJob {
  organizationId: string;
  job: ImportJobState;
}

/**
 * Commits a queued job the way submission does (file in S3, job + audit entry in one
 * transaction) but sends nothing to the queue, so no poller races the test. The job leaves the
 * sweeper's dispatch index at once unless `dispatched: false`; `submittedAt` may be backdated.
 * `file: null` stores no object (the worker then fails to read it).
 */
export async function commitQueuedJob(
  organizationId: string,
  options: { file: string | Buffer | null; kind?: string; duplicateStrategy?: DuplicateStrategy; dryRun?: boolean; submittedAt?: Date; dispatched?: boolean },
): Promise<CommittedJob> {
  const jobs = importJobsStore();
  // The real submission code, minus the hand-off to the queue.
  const submitter = new ImportJobSubmitter({
    files: options.file === null ? { put: async () => undefined } : filesStore(),
    jobs,
    queue: { send: async () => undefined },
  });
  const plan = await submitter.prepare(
    organizationId,
    {
      kind: options.kind ?? 'items',
      duplicateStrategy: options.duplicateStrategy ?? 'skip',
      dryRun: options.dryRun ?? false,
      file: { fileName: 'test.csv', content: Buffer.from(options.file ?? `missing-${randomUUID()}`) },
    },
    options.submittedAt ?? new Date(),
  );
  await transactionWriter().run({ organizationId, actor: { type: 'system', id: 'import-tests' }, traceId: null }, async () => plan);
  if (options.dispatched !== false) await jobs.markDispatched(organizationId, plan.result.id);
  return { organizationId, job: plan.result };
}

/**
 * Runs a committed-but-unqueued job to its end in process with the real stores (or the records
 * and writer given), in transactions of the production worker's size (actions and bytes), and
 * gives its stored state.
 */
export async function runImportInProcess(
  organizationId: string,
  kind: string,
  file: string,
  options: InProcessOptions & { duplicateStrategy?: DuplicateStrategy; dryRun?: boolean } = {},
): Promise<ImportJobState> {
  const { job } = await commitQueuedJob(organizationId, {
    kind,
    file,
    duplicateStrategy: options.duplicateStrategy ?? 'fail',
    dryRun: options.dryRun ?? false,
  });
  expect(await inProcessProcessor(options).process(organizationId, job.id, () => 600_000)).toBe('finished');
  return storedJob(organizationId, job.id);
}

export interface InProcessOptions {
  records?: ImportRecords<StoreWrite>;
  writer?: CommandWriter<StoreWrite>;
  /** How builds are submitted and run (default: the real stores and runner). */
  builds?: ImportBuilds;
}

/** The import worker's processor with the real stores (or those given), in transactions of the production worker's size (actions and bytes). */
export function inProcessProcessor(options: InProcessOptions = {}): ImportJobProcessor<StoreWrite> {
  return new ImportJobProcessor({
    jobs: importJobsStore(),
    files: filesStore(),
    dryRunOverlays: dryRunOverlaysStore(),
    records: options.records ?? importRecords(),
    writer: options.writer ?? transactionWriter(),
    builds: options.builds ?? importBuilds(buildPorts(storeTables())),
    continueLater: () => Promise.reject(new Error('a job was handed on')),
    chunkActions: bulkChunkActions(),
    chunkBytes: BULK_CHUNK_BYTES,
    writeBytes: storeWriteBytes,
  });
}

/** The three tables a command writes to, by their names in the local stack. */
export const storeTables = () => ({ inventory: tableName('inventory'), events: tableName('events'), audit: tableName('audit') });

/**
 * The real import records, watched: `beforeRead` is told when a read by natural key starts;
 * `afterRead` runs after it (with the entity and how many reads of it came before, from 1),
 * before the job sees the result (a test interferes there); `onWrite` sees each write's op.
 */
export function watchedImportRecords(hooks: {
  beforeRead?: (entity: string) => void;
  afterRead?: (entity: string, count: number) => Promise<void> | void;
  onWrite?: (op: string) => void;
}): ImportRecords<StoreWrite> {
  const real = importRecords();
  const reads = new Map<string, number>();
  return {
    getByNaturalKeys: async (organizationId, entity, keys) => {
      hooks.beforeRead?.(entity);
      const found = await real.getByNaturalKeys(organizationId, entity, keys);
      const count = (reads.get(entity) ?? 0) + 1;
      reads.set(entity, count);
      await hooks.afterRead?.(entity, count);
      return found;
    },
    getItemsByIds: (organizationId, ids) => real.getItemsByIds(organizationId, ids),
    stockRecordsAt: (organizationId, places) => real.stockRecordsAt(organizationId, places),
    writesOf: (organizationId, write) => {
      hooks.onWrite?.(write.op);
      return real.writesOf(organizationId, write);
    },
  };
}

/** The stored job (with checkpoint and file key), which must exist. */
export async function storedJob(organizationId: string, jobId: string): Promise<ImportJobState> {
  const job = await importJobsStore().get(organizationId, jobId);
  if (!job) throw new Error(`No job ${jobId} in ${organizationId}`);
  return job;
}

// ---------------------------------------------------------------------------------------------
// SQS events for invoking the worker directly

/** An SQS record as Lambda's event source mapping delivers it. */
export function sqsRecord(body: string, options: { receiveCount?: number; messageId?: string } = {}): SQSRecord {
  const now = String(Date.now());
  return {
    messageId: options.messageId ?? randomUUID(),
    receiptHandle: `handle-${randomUUID()}`,
    body,
    attributes: {
      ApproximateReceiveCount: String(options.receiveCount ?? 1),
      SentTimestamp: now,
      SenderId: '000000000000',
      ApproximateFirstReceiveTimestamp: now,
    },
    messageAttributes: {},
    md5OfBody: createHash('md5').update(body).digest('hex'),
    eventSource: 'aws:sqs',
    eventSourceARN: `arn:aws:sqs:us-east-1:000000000000:${IMPORT_QUEUE.id}`,
    awsRegion: 'us-east-1',
  };
}

export const jobMessage = (organizationId: string, jobId: string) => JSON.stringify({ organizationId, jobId });

export const sqsEvent = (...records: SQSRecord[]): SQSEvent => ({ Records: records });

/** A Lambda context with the worker's timeout. */
export const workerContext = (timeoutMs = IMPORT_QUEUE.workerTimeoutSeconds * 1000): Context => lambdaContext('processImportJobs', randomUUID(), timeoutMs);
