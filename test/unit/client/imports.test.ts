import { describe, expect, it } from 'vitest';
import { createInventoryClient, importFile, type ImportJob, type ImportProgress } from '../../../client/index.ts';
import { fakeFetch, json, problem, recordingSleep, type RecordedRequest } from './support/fake-fetch.ts';

/** The import helper: multipart submission, polling with progress, row errors page by page (docs/client.md#the-import-helper). */

function job(status: ImportJob['status'], processedRows: number, totalRows: number): ImportJob {
  return {
    id: 'imp_1',
    kind: 'items',
    duplicateStrategy: 'update',
    dryRun: false,
    status,
    fileName: 'items.csv',
    fileSizeBytes: 10,
    fileSha256: 'ab',
    submittedAt: '2026-01-01T00:00:00.000Z',
    startedAt: null,
    completedAt: null,
    counts: { totalRows, processedRows, created: processedRows, updated: 0, skipped: 0, failed: 0 },
    failure: null,
    warnings: [],
  };
}

const rowError = (rowNumber: number) => ({ rowNumber, column: 'sku', value: null, code: 'required', message: 'Required.' });

/** submit → queued, queued, processing 0/4, processing 2/4, processing 2/4, done 4/4; errors in two pages. */
function fakeImportsApi() {
  const polls = [
    job('queued', 0, 0),
    job('queued', 0, 0),
    job('processing', 0, 4),
    job('processing', 2, 4),
    job('processing', 2, 4),
    job('completed_with_errors', 4, 4),
  ];
  let poll = 0;
  return fakeFetch((request: RecordedRequest) => {
    const route = `${request.method} ${request.url.pathname}`;
    if (route === 'POST /v1/imports/jobs') return json(job('queued', 0, 0), 202, { location: '/v1/imports/jobs/imp_1' });
    if (route === 'GET /v1/imports/jobs/imp_1') return json(polls[Math.min(poll++, polls.length - 1)]);
    if (route === 'GET /v1/imports/jobs/imp_1/errors') {
      return request.url.searchParams.get('cursor') === 'p2'
        ? json({ data: [rowError(3)], page: { nextCursor: null }, notStoredCount: 0 })
        : json({ data: [rowError(1), rowError(2)], page: { nextCursor: 'p2' }, notStoredCount: 0 });
    }
    return problem(404, 'customer-api.route.not-found');
  });
}

describe('importFile', () => {
  it('submits the form, polls with backoff while reporting progress, and pages the row errors', async () => {
    // Prepare
    const transport = fakeImportsApi();
    const { sleep, sleeps } = recordingSleep();
    const client = createInventoryClient({ baseUrl: 'http://api.test', apiKey: 'k', fetch: transport.fetch, sleep });
    const progress: ImportProgress[] = [];
    // Act
    const result = await importFile(client, {
      kind: 'items',
      file: new File(['sku,name\nA,a\n'], 'items.csv'),
      duplicateStrategy: 'update',
      idempotencyKey: 'items-2026-11-21',
      initialDelayMs: 100,
      maxDelayMs: 200,
      onProgress: (report) => progress.push(report),
    });
    const errors = [];
    for await (const error of result.rowErrors) errors.push(error);
    // Assess: the submission
    const submit = transport.requests[0];
    expect(submit?.headers.get('idempotency-key')).toBe('items-2026-11-21');
    expect(submit?.headers.get('content-type')).toMatch(/^multipart\/form-data; boundary=/);
    expect([submit?.form?.get('kind'), submit?.form?.get('duplicateStrategy')]).toEqual(['items', 'update']);
    const file = submit?.form?.get('file') as File;
    expect([file.name, await file.text()]).toEqual(['items.csv', 'sku,name\nA,a\n']);
    // Assess: polling, progress and backoff (grows while nothing moves, holds while rows move)
    expect(progress.map((report) => `${report.job.status} ${report.processedRows}/${report.totalRows}`)).toEqual([
      'queued 0/0',
      'queued 0/0',
      'processing 0/4',
      'processing 2/4',
      'processing 2/4',
      'completed_with_errors 4/4',
    ]);
    expect(sleeps).toEqual([100, 150, 150, 150, 200]);
    expect(result.job.status).toBe('completed_with_errors');
    // Assess: the row errors, over both pages
    expect(errors.map((error) => error.rowNumber)).toEqual([1, 2, 3]);
    expect(transport.requests.at(-1)?.url.search).toBe('?limit=200&cursor=p2');
  });

  it('names a plain Blob by fileName and defaults the strategy to skip', async () => {
    const transport = fakeImportsApi();
    const client = createInventoryClient({ baseUrl: 'http://api.test', apiKey: 'k', fetch: transport.fetch, sleep: recordingSleep().sleep });
    await importFile(client, { kind: 'items', file: new Blob(['sku,name\n']), fileName: 'from-memory.csv' });
    const form = transport.requests[0]?.form;
    expect([(form?.get('file') as File).name, form?.get('duplicateStrategy')]).toEqual(['from-memory.csv', 'skip']);
    expect(transport.requests[0]?.headers.get('idempotency-key')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('sends dryRun as the form field true or false when given, and no field otherwise (docs/imports.md "Dry runs")', async () => {
    const transport = fakeImportsApi();
    const client = createInventoryClient({ baseUrl: 'http://api.test', apiKey: 'k', fetch: transport.fetch, sleep: recordingSleep().sleep });
    await importFile(client, { kind: 'items', file: new Blob(['sku,name\n']), dryRun: true });
    expect(transport.requests[0]?.form?.getAll('dryRun')).toEqual(['true']);
    const plain = fakeImportsApi();
    await importFile(createInventoryClient({ baseUrl: 'http://api.test', apiKey: 'k', fetch: plain.fetch, sleep: recordingSleep().sleep }), {
      kind: 'items',
      file: new Blob(['sku,name\n']),
    });
    expect(plain.requests[0]?.form?.getAll('dryRun')).toEqual([]);
  });
});
