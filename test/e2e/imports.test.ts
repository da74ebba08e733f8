import { createHash, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Item } from '../../lib/inventory/domain/item.ts';
import { MAX_STORED_ROW_ERRORS, type ImportJob } from '../../lib/imports/domain/job.ts';
import { callApi, createTestKey } from '../support/api.ts';
import { envelopeSchemaValidator } from '../support/events.ts';
import {
  allRowErrors,
  commitQueuedJob,
  countPerSku,
  csvOf,
  errorKeys,
  feedOf,
  getJob,
  importAndWait,
  importJobsStore,
  itemsCsv,
  itemsOf,
  locationsOf,
  postImport,
  rawMultipart,
  skusOf,
  storedJob,
  submitImport,
  waitForJob,
} from '../support/imports.ts';
import { expectProblem } from '../support/problem.ts';
import { withinOneWindow } from '../support/rate-limit-window.ts';

/**
 * Imports over HTTP against `npm start` (its SQS poller runs the worker; docs/imports.md): submission,
 * the job's life, row errors, duplicate strategies, both kinds, hostile input, tenant isolation,
 * the kinds list and the submission rate limit. Each test uses its own key and organization.
 */

const MiB = 1024 * 1024;
const ITEM_HEADER = ['sku', 'name', 'unit', 'reorderPoint', 'trackingMode'];

async function newKey() {
  const created = await createTestKey();
  return { key: created.key, organizationId: created.record.organizationId };
}

const sha256 = (content: string | Buffer) => createHash('sha256').update(content).digest('hex');

describe('POST /v1/imports/jobs with 10,000 items', () => {
  it('creates every item once, emits item.created exactly once each, counts exactly and replays the 202', { timeout: 240_000 }, async () => {
    // Prepare
    const { key, organizationId } = await newKey();
    const rows = 10_000;
    const csv = itemsCsv(rows, 'BULK');
    const idempotencyKey = randomUUID();

    // Act
    const started = performance.now();
    const response = await submitImport(key, { file: csv, duplicateStrategy: 'fail', idempotencyKey, fileName: 'bulk.csv' });
    const acceptedText = await response.text();
    const accepted = JSON.parse(acceptedText) as ImportJob;
    const finished = await waitForJob(key, accepted.id, 200_000, 250);
    const seconds = (performance.now() - started) / 1000;
    console.log(`imports e2e: ${rows} rows submitted → ${finished.status} in ${seconds.toFixed(1)} s = ${Math.round(rows / seconds)} rows/s end to end`);
    const replay = await submitImport(key, { file: csv, duplicateStrategy: 'fail', idempotencyKey, fileName: 'bulk.csv' });

    // Assess: the 202
    expect(response.status).toBe(202);
    expect(response.headers.get('location')).toBe(`/v1/imports/jobs/${accepted.id}`);
    expect(accepted).toEqual({
      id: expect.stringMatching(/^imp_[0-9A-Z]{26}$/),
      kind: 'items',
      duplicateStrategy: 'fail',
      dryRun: false,
      status: 'queued',
      fileName: 'bulk.csv',
      fileSizeBytes: Buffer.byteLength(csv),
      fileSha256: sha256(csv),
      submittedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      startedAt: null,
      completedAt: null,
      counts: { totalRows: 0, processedRows: 0, created: 0, updated: 0, skipped: 0, failed: 0 },
      failure: null,
      warnings: [],
    });
    // Assess: the replay is the first response, byte for byte, and starts no second job
    expect(replay.status).toBe(202);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.headers.get('location')).toBe(`/v1/imports/jobs/${accepted.id}`);
    expect(await replay.text()).toBe(acceptedText);
    // Assess: the finished job
    expect(finished.status, JSON.stringify(finished)).toBe('succeeded');
    expect(finished.counts).toEqual({ totalRows: rows, processedRows: rows, created: rows, updated: 0, skipped: 0, failed: 0 });
    expect(finished.failure).toBeNull();
    expect(Date.parse(finished.startedAt ?? '')).toBeGreaterThanOrEqual(Date.parse(finished.submittedAt));
    expect(Date.parse(finished.completedAt ?? '')).toBeGreaterThanOrEqual(Date.parse(finished.startedAt ?? ''));
    // Assess: every item, as the file says
    const skus = skusOf(rows, 'BULK');
    const records = await itemsOf(organizationId, skus);
    expect(records.size).toBe(rows);
    skus.forEach((itemSku, index) => {
      const stored = records.get(itemSku);
      expect(stored?.version).toBe(1);
      expect(stored?.record).toMatchObject({ sku: itemSku, name: `Item ${index + 1}`, unit: 'ea', reorderPoint: (index + 1) % 50, trackingMode: 'none' });
    });
    expect(new Set([...records.values()].map(({ record }) => record.id)).size).toBe(rows);
    // Assess: item.created exactly once per item, carrying the stored item, schema-valid
    const events = await feedOf(organizationId);
    const perSku = countPerSku(events, 'item.created');
    expect(events).toHaveLength(rows);
    expect(perSku.size).toBe(rows);
    expect([...perSku.values()].every((count) => count === 1)).toBe(true);
    const validator = envelopeSchemaValidator();
    for (const event of events) {
      const item = event.data.item as Item;
      expect(item).toEqual(records.get(item.sku)?.record);
      expect(validator.errors(event)).toEqual([]);
    }
    // Assess: a succeeded job has no row errors
    expect((await allRowErrors(key, accepted.id)).errors).toEqual([]);
  });
});

describe('POST /v1/imports/jobs idempotency', () => {
  it('answers 409 key-reused when the same Idempotency-Key comes with another file, and replays the same form sent with another boundary', async () => {
    // Prepare
    const { key } = await newKey();
    const idempotencyKey = randomUUID();
    const first = await submitImport(key, { file: 'sku,name\nIK-1,a\n', idempotencyKey });
    const firstBody = await first.text();

    // Act
    const otherFile = await submitImport(key, { file: 'sku,name\nIK-1,b\n', idempotencyKey });
    const handMade = rawMultipart([
      { name: 'kind', value: 'items' },
      { name: 'duplicateStrategy', value: 'skip' },
      { name: 'file', value: 'sku,name\nIK-1,a\n', fileName: 'items.csv' },
    ]);
    const sameForm = await postImport(key, handMade.body, { 'content-type': handMade.contentType }, idempotencyKey);

    // Assess
    expect(first.status).toBe(202);
    await expectProblem(otherFile, 409, 'customer-api.idempotency.key-reused');
    expect(sameForm.status).toBe(202);
    expect(sameForm.headers.get('idempotent-replayed')).toBe('true');
    expect(await sameForm.text()).toBe(firstBody);
  });

  it.each(['application/octet-stream', 'application/vnd.ms-excel', 'text/plain'])(
    'replays the same file sent again as %s: a file is compared by its name and bytes, not its declared type',
    async (partType) => {
      // Prepare
      const { key } = await newKey();
      const idempotencyKey = randomUUID();
      const first = await submitImport(key, { file: 'sku,name\nCT-1,a\n', idempotencyKey });

      // Act
      const retried = rawMultipart([
        { name: 'kind', value: 'items' },
        { name: 'duplicateStrategy', value: 'skip' },
        { name: 'file', value: 'sku,name\nCT-1,a\n', fileName: 'items.csv', contentType: partType },
      ]);
      const replay = await postImport(key, retried.body, { 'content-type': retried.contentType }, idempotencyKey);

      // Assess
      expect(replay.status).toBe(202);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(await replay.text()).toBe(await first.text());
    },
  );
});

describe('row errors', () => {
  const header = [...ITEM_HEADER, 'color'];
  // Row numbers: 1 = first record after the header; the blank line is row 5 and is skipped.
  const file = [
    header.join(','),
    'E-01,Alpha,ea,10,none,red',
    'E-02,,ea,5,none,',
    'E-03,Gamma,ea,abc,none,',
    'E-04,Delta,ea,1,serial,',
    '',
    'E-01,Alpha again,ea,1,none,',
    ',No sku,ea,,,',
    'E-08, ,kg,-1,lot,',
    'E-09,Iota,ea,1e3,none,',
    'E-10,Kappa,ea,,lot,,surplus',
    'E-11,Lambda,,,,',
  ].join('\r\n');
  const expectedErrors = [
    { rowNumber: 2, column: 'name', value: null, code: 'required' },
    { rowNumber: 3, column: 'reorderPoint', value: 'abc', code: 'invalid-number' },
    { rowNumber: 4, column: 'trackingMode', value: 'serial', code: 'invalid-value' },
    { rowNumber: 6, column: 'sku', value: 'E-01', code: 'duplicate-in-file' },
    { rowNumber: 7, column: 'sku', value: null, code: 'required' },
    { rowNumber: 8, column: 'name', value: ' ', code: 'required' },
    { rowNumber: 8, column: 'reorderPoint', value: '-1', code: 'invalid-number' },
    { rowNumber: 9, column: 'reorderPoint', value: '1e3', code: 'invalid-number' },
    { rowNumber: 10, column: null, value: 'surplus', code: 'extra-cells' },
  ];

  it('finishes completed_with_errors with every row error by row, column, value and code; valid rows are applied', async () => {
    // Prepare
    const { key, organizationId } = await newKey();

    // Act
    const job = await importAndWait(key, { file, duplicateStrategy: 'fail' });
    const { errors } = await allRowErrors(key, job.id);

    // Assess
    expect(job.status).toBe('completed_with_errors');
    expect(job.counts).toEqual({ totalRows: 10, processedRows: 10, created: 2, updated: 0, skipped: 0, failed: 8 });
    expect(job.failure).toBeNull();
    expect(job.warnings).toEqual([{ column: 'color', code: 'unknown-column', message: expect.stringContaining('color') }]);
    expect(errorKeys(errors)).toEqual(expectedErrors);
    const items = await itemsOf(organizationId, ['E-01', 'E-02', 'E-03', 'E-04', 'E-08', 'E-09', 'E-10', 'E-11']);
    expect([...items.keys()].sort()).toEqual(['E-01', 'E-11']);
    expect(items.get('E-01')?.record).toMatchObject({ name: 'Alpha', reorderPoint: 10 });
    expect(items.get('E-11')?.record).toMatchObject({ name: 'Lambda', unit: 'ea', reorderPoint: null, trackingMode: 'none' });
    expect([...countPerSku(await feedOf(organizationId), 'item.created').keys()].sort()).toEqual(['E-01', 'E-11']);
  });

  it('imports a file whose header ends in a comma (as spreadsheets export it): the unnamed column is a warning, not a failure', async () => {
    // Prepare
    const { key, organizationId } = await newKey();
    const trailingComma = ['sku,name,', 'TC-1,Trailing one,', 'TC-2,Trailing two,'].join('\n');

    // Act
    const job = await importAndWait(key, { file: trailingComma, duplicateStrategy: 'fail' });

    // Assess
    expect(job.status).toBe('succeeded');
    expect(job.failure).toBeNull();
    expect(job.counts).toMatchObject({ totalRows: 2, created: 2, failed: 0 });
    expect(job.warnings).toEqual([{ column: '', code: 'unknown-column', message: expect.stringContaining('no name') }]);
    expect([...(await itemsOf(organizationId, ['TC-1', 'TC-2'])).keys()].sort()).toEqual(['TC-1', 'TC-2']);
  });

  it('imports a file whose unknown column is named twice (Notes, notes): one warning, not duplicate-column', async () => {
    // Prepare
    const { key, organizationId } = await newKey();
    const file = ['sku,name,Notes,notes', 'RN-1,Repeated one,x,y', 'RN-2,Repeated two,,'].join('\n');

    // Act
    const job = await importAndWait(key, { file, duplicateStrategy: 'fail' });

    // Assess
    expect(job.status).toBe('succeeded');
    expect(job.failure).toBeNull();
    expect(job.counts).toMatchObject({ totalRows: 2, created: 2, failed: 0 });
    expect(job.warnings).toEqual([{ column: 'Notes', code: 'unknown-column', message: expect.stringContaining('named 2 times') }]);
    expect([...(await itemsOf(organizationId, ['RN-1', 'RN-2'])).keys()].sort()).toEqual(['RN-1', 'RN-2']);
  });

  it('pages row errors with limit and cursor, in row order, to a null cursor; cursors are bound to the job', async () => {
    // Prepare
    const { key } = await newKey();
    const job = await importAndWait(key, { file, duplicateStrategy: 'fail' });
    const other = await importAndWait(key, { file: 'sku,name\n,x\n', duplicateStrategy: 'fail' });
    const firstPage = await callApi(`/v1/imports/jobs/${job.id}/errors?limit=2`, { key });
    const { page } = (await firstPage.json()) as { page: { nextCursor: string } };

    // Act
    const paged = await allRowErrors(key, job.id, 2);
    const whole = await allRowErrors(key, job.id);
    const foreignCursor = await callApi(`/v1/imports/jobs/${other.id}/errors?cursor=${encodeURIComponent(page.nextCursor)}`, { key });
    const tampered = await callApi(`/v1/imports/jobs/${job.id}/errors?cursor=${encodeURIComponent(`${page.nextCursor.slice(0, -2)}xx`)}`, { key });
    const badLimit = await callApi(`/v1/imports/jobs/${job.id}/errors?limit=0`, { key });

    // Assess
    expect(paged.pages).toEqual([2, 2, 2, 2, 1]);
    expect(paged.errors).toEqual(whole.errors);
    expect(whole.pages).toEqual([9]);
    expect(errorKeys(paged.errors)).toEqual(expectedErrors);
    await expectProblem(foreignCursor, 400, 'customer-api.pagination.invalid-cursor');
    await expectProblem(tampered, 400, 'customer-api.pagination.invalid-cursor');
    await expectProblem(badLimit, 400, 'customer-api.validation.failed');
  });

  it('answers 409 job-not-finished while the job is queued or processing, and 200 once it has finished', async () => {
    // Prepare: a job committed but never sent to the queue stays queued
    const { key, organizationId } = await newKey();
    const { job } = await commitQueuedJob(organizationId, { file: 'sku,name\nQ-1,a\n' });

    // Act
    const whileQueued = await callApi(`/v1/imports/jobs/${job.id}/errors`, { key });
    const queuedJob = await getJob(key, job.id);
    await importJobsStore().start(await storedJob(organizationId, job.id), { totalRows: 1, warnings: [] }, new Date().toISOString());
    const whileProcessing = await callApi(`/v1/imports/jobs/${job.id}/errors`, { key });
    const processingJob = await getJob(key, job.id);

    // Assess
    await expectProblem(whileQueued, 409, 'customer-api.imports.job-not-finished');
    expect(queuedJob.status).toBe('queued');
    await expectProblem(whileProcessing, 409, 'customer-api.imports.job-not-finished');
    expect(processingJob).toMatchObject({ status: 'processing', counts: { totalRows: 1 } });
  });

  it('answers 200 with no errors once a submitted job has finished', async () => {
    // Prepare
    const { key } = await newKey();

    // Act
    const job = await importAndWait(key, { file: 'sku,name\nOK-1,a\n' });
    const response = await callApi(`/v1/imports/jobs/${job.id}/errors`, { key });

    // Assess
    expect(job.status).toBe('succeeded');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ data: [], page: { nextCursor: null }, notStoredCount: 0 });
  });
});

describe('row errors beyond the stored cap', () => {
  it(`lists the first ${MAX_STORED_ROW_ERRORS} errors in row order and says how many more were counted but not stored`, { timeout: 60_000 }, async () => {
    // Prepare: 1,700 rows with 6 invalid cells each = 10,200 errors
    const { key } = await newKey();
    const rows = Array.from({ length: 1700 }, (_, index) => `\u0001${index},,\u0001,\u0001,x,y`);
    const file = `sku,name,unit,barcode,reorderPoint,trackingMode\n${rows.join('\n')}\n`;

    // Act
    const job = await importAndWait(key, { file });
    const listed: Array<{ rowNumber: number }> = [];
    const notStored: number[] = [];
    for (let cursor: string | null = null, first = true; first || cursor !== null; first = false) {
      const query: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
      const response = await callApi(`/v1/imports/jobs/${job.id}/errors?limit=200${query}`, { key });
      expect(response.status).toBe(200);
      const page = (await response.json()) as { data: Array<{ rowNumber: number }>; page: { nextCursor: string | null }; notStoredCount: number };
      listed.push(...page.data);
      notStored.push(page.notStoredCount);
      cursor = page.page.nextCursor;
    }

    // Assess: every row counted as failed; 10,000 errors listed (rows 1..1666 whole, 4 of row 1667), 200 not stored
    expect(job).toMatchObject({ status: 'completed_with_errors', counts: { totalRows: 1700, processedRows: 1700, failed: 1700 } });
    expect(listed).toHaveLength(MAX_STORED_ROW_ERRORS);
    expect(listed.map((error) => error.rowNumber)).toEqual([...listed.map((error) => error.rowNumber)].sort((a, b) => a - b));
    expect(listed.at(-1)?.rowNumber).toBe(1667);
    expect(new Set(notStored)).toEqual(new Set([1700 * 6 - MAX_STORED_ROW_ERRORS]));
  });
});

describe('duplicate strategies on a re-import', () => {
  const original = csvOf(ITEM_HEADER, [
    ['D-1', 'Bolt', 'ea', '10', 'none'],
    ['D-2', 'Nut', 'ea', '20', 'none'],
    ['D-3', 'Washer', 'ea', '', 'lot'],
  ]);

  async function imported() {
    const { key, organizationId } = await newKey();
    const first = await importAndWait(key, { file: original, duplicateStrategy: 'skip' });
    expect(first.counts).toMatchObject({ created: 3, failed: 0 });
    const before = await itemsOf(organizationId, ['D-1', 'D-2', 'D-3']);
    return { key, organizationId, before };
  }

  it.each([
    {
      strategy: 'fail',
      status: 'completed_with_errors',
      counts: { created: 0, updated: 0, skipped: 0, failed: 3 },
      errors: ['D-1', 'D-2', 'D-3'].map((value, index) => ({ rowNumber: index + 1, column: 'sku', value, code: 'duplicate' })),
    },
    { strategy: 'skip', status: 'succeeded', counts: { created: 0, updated: 0, skipped: 3, failed: 0 }, errors: [] },
    { strategy: 'update', status: 'succeeded', counts: { created: 0, updated: 0, skipped: 3, failed: 0 }, errors: [] },
  ])('$strategy: the same file again → $status, records and feed unchanged', async ({ strategy, status, counts, errors }) => {
    // Prepare
    const { key, organizationId, before } = await imported();
    const eventsBefore = await feedOf(organizationId);

    // Act
    const job = await importAndWait(key, { file: original, duplicateStrategy: strategy });

    // Assess
    expect(job.status).toBe(status);
    expect(job.counts).toEqual({ totalRows: 3, processedRows: 3, ...counts });
    expect(errorKeys((await allRowErrors(key, job.id)).errors)).toEqual(errors);
    expect(await itemsOf(organizationId, ['D-1', 'D-2', 'D-3'])).toEqual(before);
    expect(await feedOf(organizationId)).toEqual(eventsBefore);
  });

  it('update: changed rows → updated with item.updated (changedFields, previous), unchanged rows → skipped, new rows → created', async () => {
    // Prepare
    const { key, organizationId, before } = await imported();
    const modified = csvOf(ITEM_HEADER, [
      ['D-1', 'Bolt M8', 'ea', '10', 'none'],
      ['D-2', 'Nut', 'pcs', '25', 'none'],
      ['D-3', 'Washer', 'ea', '', 'lot'],
      ['D-4', 'Spring', 'ea', '5', 'none'],
    ]);
    const eventsBefore = await feedOf(organizationId);

    // Act
    const job = await importAndWait(key, { file: modified, duplicateStrategy: 'update' });

    // Assess
    expect(job.status).toBe('succeeded');
    expect(job.counts).toEqual({ totalRows: 4, processedRows: 4, created: 1, updated: 2, skipped: 1, failed: 0 });
    const after = await itemsOf(organizationId, ['D-1', 'D-2', 'D-3', 'D-4']);
    const d1 = after.get('D-1');
    const d2 = after.get('D-2');
    expect(d1?.version).toBe(2);
    expect(d1?.record).toEqual({ ...before.get('D-1')?.record, name: 'Bolt M8', updatedAt: expect.any(String) });
    expect((d1?.record.updatedAt ?? '') > (before.get('D-1')?.record.updatedAt ?? '')).toBe(true);
    expect(d2?.record).toEqual({ ...before.get('D-2')?.record, unit: 'pcs', reorderPoint: 25, updatedAt: d2?.record.updatedAt });
    expect(after.get('D-3')).toEqual(before.get('D-3'));
    expect(after.get('D-4')?.record).toMatchObject({ sku: 'D-4', name: 'Spring', reorderPoint: 5 });
    const added = (await feedOf(organizationId)).slice(eventsBefore.length);
    expect(added.map((event) => [event.type, (event.data.item as Item).sku])).toEqual([
      ['item.updated', 'D-1'],
      ['item.updated', 'D-2'],
      ['item.created', 'D-4'],
    ]);
    expect(added[0]?.data).toEqual({ item: d1?.record, changedFields: ['name'], previous: { name: 'Bolt' } });
    expect(added[1]?.data).toEqual({ item: d2?.record, changedFields: ['unit', 'reorderPoint'], previous: { unit: 'ea', reorderPoint: 20 } });
    expect(added[2]?.data).toEqual({ item: after.get('D-4')?.record });
    const validator = envelopeSchemaValidator();
    for (const event of added) expect(validator.errors(event)).toEqual([]);
  });

  it('update: a column absent from the file leaves the field unchanged, an empty cell clears it', async () => {
    // Prepare
    const { key, organizationId, before } = await imported();
    const partial = csvOf(
      ['sku', 'name', 'reorderPoint'],
      [
        ['D-1', 'Bolt', ''],
        ['D-2', 'Nut', '20'],
      ],
    );

    // Act
    const job = await importAndWait(key, { file: partial, duplicateStrategy: 'update' });

    // Assess
    expect(job.counts).toEqual({ totalRows: 2, processedRows: 2, created: 0, updated: 1, skipped: 1, failed: 0 });
    const after = await itemsOf(organizationId, ['D-1', 'D-2']);
    expect(after.get('D-1')?.record).toEqual({ ...before.get('D-1')?.record, reorderPoint: null, updatedAt: after.get('D-1')?.record.updatedAt });
    expect(after.get('D-2')).toEqual(before.get('D-2'));
    const last = (await feedOf(organizationId)).at(-1);
    expect(last?.data).toMatchObject({ changedFields: ['reorderPoint'], previous: { reorderPoint: 10 } });
  });
});

describe('locations', () => {
  it('resolves parentCode against earlier rows of the file and existing locations; anything else is a row error', async () => {
    // Prepare
    const { key, organizationId } = await newKey();
    const header = ['code', 'name', 'type', 'parentCode'];
    const tree = csvOf(header, [
      ['WH', 'Main warehouse', 'warehouse', ''],
      ['Z-A', 'Zone A', 'zone', 'WH'],
      ['B-1', 'Bin 1', 'bin', 'Z-A'],
    ]);
    const more = csvOf(header, [
      ['B-2', 'Bin 2', 'bin', 'Z-A'],
      ['B-3', 'Bin 3', 'bin', 'NOPE'],
      ['B-4', 'Bin 4', 'bin', 'B-5'],
      ['B-5', 'Bin 5', '', 'B-2'],
      ['B-6', 'Bin 6', 'bin', 'B-6'],
      ['B-7', 'Bin 7', 'bin', 'B-3'],
    ]);

    // Act
    const first = await importAndWait(key, { kind: 'locations', file: tree, duplicateStrategy: 'fail' });
    const second = await importAndWait(key, { kind: 'locations', file: more, duplicateStrategy: 'fail' });

    // Assess
    expect(first.status).toBe('succeeded');
    expect(first.counts).toEqual({ totalRows: 3, processedRows: 3, created: 3, updated: 0, skipped: 0, failed: 0 });
    expect(second.status).toBe('completed_with_errors');
    expect(second.counts).toEqual({ totalRows: 6, processedRows: 6, created: 2, updated: 0, skipped: 0, failed: 4 });
    expect(errorKeys((await allRowErrors(key, second.id)).errors)).toEqual([
      { rowNumber: 2, column: 'parentCode', value: 'NOPE', code: 'unknown-location' },
      { rowNumber: 3, column: 'parentCode', value: 'B-5', code: 'unknown-location' },
      { rowNumber: 5, column: 'parentCode', value: 'B-6', code: 'invalid-value' },
      { rowNumber: 6, column: 'parentCode', value: 'B-3', code: 'unknown-location' },
    ]);
    const locations = await locationsOf(organizationId, ['WH', 'Z-A', 'B-1', 'B-2', 'B-3', 'B-4', 'B-5', 'B-6', 'B-7']);
    expect(Object.fromEntries([...locations].map(([code, { record }]) => [code, [record.type, record.parentCode]]))).toEqual({
      WH: ['warehouse', null],
      'Z-A': ['zone', 'WH'],
      'B-1': ['bin', 'Z-A'],
      'B-2': ['bin', 'Z-A'],
      'B-5': ['bin', 'B-2'],
    });
    expect(locations.get('WH')?.record).toMatchObject({ id: expect.stringMatching(/^loc_/), name: 'Main warehouse' });
    expect(await feedOf(organizationId)).toEqual([]);
  });

  it('refuses an update that would make a location its own ancestor, directly or through rows of the same file', async () => {
    // Prepare: WH > Z-A > B-1 exists
    const { key, organizationId } = await newKey();
    const header = ['code', 'name', 'type', 'parentCode'];
    await importAndWait(key, {
      kind: 'locations',
      file: csvOf(header, [
        ['WH', 'Main warehouse', 'warehouse', ''],
        ['Z-A', 'Zone A', 'zone', 'WH'],
        ['B-1', 'Bin 1', 'bin', 'Z-A'],
      ]),
      duplicateStrategy: 'fail',
    });
    const moves = csvOf(header, [
      ['WH', 'Main warehouse', 'warehouse', 'B-1'], // B-1 descends from WH
      ['N-1', 'New zone', 'zone', 'Z-A'], // created under Z-A ...
      ['Z-A', 'Zone A', 'zone', 'N-1'], // ... so Z-A under N-1 would be a loop
      ['B-1', 'Bin 1', 'bin', 'WH'], // a legal move
    ]);

    // Act
    const job = await importAndWait(key, { kind: 'locations', file: moves, duplicateStrategy: 'update' });

    // Assess
    expect(job.counts).toEqual({ totalRows: 4, processedRows: 4, created: 1, updated: 1, skipped: 0, failed: 2 });
    expect(errorKeys((await allRowErrors(key, job.id)).errors)).toEqual([
      { rowNumber: 1, column: 'parentCode', value: 'B-1', code: 'invalid-value' },
      { rowNumber: 3, column: 'parentCode', value: 'N-1', code: 'invalid-value' },
    ]);
    const locations = await locationsOf(organizationId, ['WH', 'Z-A', 'B-1', 'N-1']);
    expect(Object.fromEntries([...locations].map(([code, { record }]) => [code, record.parentCode]))).toEqual({
      WH: null,
      'Z-A': 'WH',
      'B-1': 'WH',
      'N-1': 'Z-A',
    });
  });

  it('refuses moving the top of a 70-deep chain under its bottom (ancestors are loaded at any depth)', async () => {
    // Prepare: D-1 > D-2 > … > D-70, imported in separate jobs so the chain is stored data, not rows of one file
    const { key, organizationId } = await newKey();
    const header = ['code', 'name', 'type', 'parentCode'];
    const level = (depth: number) => [`D-${depth}`, `Depth ${depth}`, 'bin', depth === 1 ? '' : `D-${depth - 1}`];
    await importAndWait(key, {
      kind: 'locations',
      file: csvOf(
        header,
        Array.from({ length: 70 }, (_, index) => level(index + 1)),
      ),
      duplicateStrategy: 'fail',
    });

    // Act: the top goes under the bottom
    const job = await importAndWait(key, { kind: 'locations', file: csvOf(header, [['D-1', 'Depth 1', 'bin', 'D-70']]), duplicateStrategy: 'update' });

    // Assess
    expect(job.counts).toMatchObject({ totalRows: 1, updated: 0, failed: 1 });
    expect(errorKeys((await allRowErrors(key, job.id)).errors)).toEqual([{ rowNumber: 1, column: 'parentCode', value: 'D-70', code: 'invalid-value' }]);
    expect((await locationsOf(organizationId, ['D-1'])).get('D-1')?.record.parentCode).toBeNull();
  });
});

describe('hostile input', () => {
  it('strips control characters and bidi overrides from the file name it echoes in the job and the audit log', async () => {
    // Prepare: U+202E would show "invoice‮vsc.exe" as "invoiceexe.csv"; C0, C1 and isolates too
    const { key } = await newKey();
    const fileName = 'invoice\u202Evsc.exe\u0007\u0085\u2066x\u2069\u200F.csv';

    // Act
    const job = await importAndWait(key, { file: 'sku,name\nFN-1,a\n', fileName });

    // Assess
    expect(job.fileName).toBe('invoicevsc.exex.csv');
    const audit = await callApi('/v1/audit/events?kind=import.submitted', { key });
    expect(JSON.stringify(await audit.json())).toContain('Import of invoicevsc.exex.csv');
  });

  it('refuses zero-width and bidi characters in identifier cells (WIDGET\\u200B, L-1\\u202E) with invalid-value; no look-alike record is made', async () => {
    // Prepare: each bad cell looks exactly like a valid one on screen
    const { key, organizationId } = await newKey();
    const items = csvOf(
      ['sku', 'name', 'barcode'],
      [
        ['WIDGET', 'Widget', ''],
        ['WIDGET\u200B', 'Widget again', ''],
        ['W-2', 'Other', '4006381333931\u2066'],
      ],
    );
    const locations = csvOf(
      ['code', 'name'],
      [
        ['L-1', 'Aisle'],
        ['L-1\u202E', 'Aisle again'],
        ['L\uFEFF-2', 'Hidden BOM'],
      ],
    );

    // Act
    const itemsJob = await importAndWait(key, { file: items, duplicateStrategy: 'fail' });
    const locationsJob = await importAndWait(key, { kind: 'locations', file: locations, duplicateStrategy: 'fail' });

    // Assess
    expect(itemsJob.counts).toMatchObject({ totalRows: 3, created: 1, failed: 2 });
    expect(errorKeys((await allRowErrors(key, itemsJob.id)).errors)).toEqual([
      { rowNumber: 2, column: 'sku', value: 'WIDGET\u200B', code: 'invalid-value' },
      { rowNumber: 3, column: 'barcode', value: '4006381333931\u2066', code: 'invalid-value' },
    ]);
    expect(locationsJob.counts).toMatchObject({ totalRows: 3, created: 1, failed: 2 });
    expect(errorKeys((await allRowErrors(key, locationsJob.id)).errors)).toEqual([
      { rowNumber: 2, column: 'code', value: 'L-1\u202E', code: 'invalid-value' },
      { rowNumber: 3, column: 'code', value: 'L\uFEFF-2', code: 'invalid-value' },
    ]);
    expect([...(await itemsOf(organizationId, ['WIDGET', 'WIDGET\u200B', 'W-2'])).keys()]).toEqual(['WIDGET']);
    expect([...(await locationsOf(organizationId, ['L-1', 'L-1\u202E', 'L\uFEFF-2'])).keys()]).toEqual(['L-1']);
  });

  it('stores formula-like cells as given and returns them unevaluated in records and events', async () => {
    // Prepare
    const { key, organizationId } = await newKey();
    const rows = [
      ['=1+2', '=SUM(A1)', '+1', '@x', '-2'],
      ['=HYPERLINK("http://evil.example","click")', '-2', "=cmd|' /C calc'!A0", '+SUM(1)', '@SUM(1)'],
      ['\tTAB', 'tab sku', '', '', ''],
    ];
    const file = csvOf(['sku', 'name', 'description', 'category', 'barcode'], rows);

    // Act
    const job = await importAndWait(key, { file });

    // Assess: the tab-prefixed sku is refused (identifiers never carry control characters), the rest is stored verbatim
    expect(job.counts).toMatchObject({ created: 2, failed: 1 });
    expect(errorKeys((await allRowErrors(key, job.id)).errors)).toEqual([{ rowNumber: 3, column: 'sku', value: '\tTAB', code: 'invalid-value' }]);
    const items = await itemsOf(
      organizationId,
      rows.slice(0, 2).map((row) => row[0] ?? ''),
    );
    const events = await feedOf(organizationId);
    rows.slice(0, 2).forEach(([itemSku = '', name, description, category, barcode]) => {
      const expected = { sku: itemSku, name, description, category, barcode };
      expect(items.get(itemSku)?.record).toMatchObject(expected);
      expect(events.find((event) => (event.data.item as Item).sku === itemSku)?.data.item).toMatchObject(expected);
    });
  });

  it('accepts a file of exactly 4 MiB and answers 413 for one byte more', async () => {
    // Prepare: an unknown column's cell pads the file; its cells are ignored
    const { key } = await newKey();
    const head = 'sku,name,padding\nBIG-1,Big,';
    const exact = head + 'x'.repeat(4 * MiB - head.length - 1) + '\n';
    const over = exact + 'x';

    // Act
    const tooLarge = await submitImport(key, { file: over });
    const job = await importAndWait(key, { file: exact });

    // Assess
    expect(Buffer.byteLength(exact)).toBe(4 * MiB);
    await expectProblem(tooLarge, 413, 'customer-api.request.too-large');
    expect(job).toMatchObject({ status: 'succeeded', fileSizeBytes: 4 * MiB, counts: { created: 1 } });
    expect(job.warnings).toEqual([expect.objectContaining({ column: 'padding', code: 'unknown-column' })]);
  });

  it('refuses a multipart body with thousands of parts with 400 in under 2 s', async () => {
    // Prepare
    const { key } = await newKey();
    const parts = [
      { name: 'kind', value: 'items' },
      { name: 'duplicateStrategy', value: 'skip' },
      { name: 'file', value: 'sku,name\nP-1,a\n', fileName: 'a.csv' },
      ...Array.from({ length: 5000 }, (_, index) => ({ name: `f${index}`, value: 'x' })),
    ];
    const { body, contentType } = rawMultipart(parts);

    // Act
    const started = performance.now();
    const response = await postImport(key, body, { 'content-type': contentType });
    const problem = await expectProblem(response, 400, 'customer-api.validation.failed');
    const elapsedMs = performance.now() - started;

    // Assess
    expect(elapsedMs).toBeLessThan(2000);
    expect(problem.errors?.[0]).toMatchObject({ location: 'form', code: expect.stringMatching(/^too-many-(fields|parts)$/) });
  });

  it.each([
    {
      label: 'two files',
      parts: [
        { name: 'kind', value: 'items' },
        { name: 'duplicateStrategy', value: 'skip' },
        { name: 'file', value: 'sku,name\nA,a\n', fileName: 'a.csv' },
        { name: 'file', value: 'sku,name\nB,b\n', fileName: 'b.csv' },
      ],
      error: { location: 'form', name: 'file', code: 'too-many-files' },
    },
    {
      label: 'a repeated field',
      parts: [
        { name: 'kind', value: 'items' },
        { name: 'kind', value: 'locations' },
        { name: 'duplicateStrategy', value: 'skip' },
        { name: 'file', value: 'sku,name\nA,a\n', fileName: 'a.csv' },
      ],
      error: { location: 'form', name: 'kind', code: 'repeated' },
    },
    {
      label: 'an unknown field',
      parts: [
        { name: 'kind', value: 'items' },
        { name: 'duplicateStrategy', value: 'skip' },
        { name: 'organizationId', value: 'org_other' },
        { name: 'file', value: 'sku,name\nA,a\n', fileName: 'a.csv' },
      ],
      error: { location: 'form' },
    },
    {
      label: 'the file sent as a text field',
      parts: [
        { name: 'kind', value: 'items' },
        { name: 'duplicateStrategy', value: 'skip' },
        { name: 'file', value: 'sku,name\nA,a\n' },
      ],
      error: { location: 'form', name: 'file' },
    },
  ])('answers 400 with a form error for $label', async ({ parts, error }) => {
    // Prepare
    const { key } = await newKey();
    const { body, contentType } = rawMultipart(parts);

    // Act
    const response = await postImport(key, body, { 'content-type': contentType });

    // Assess
    const problem = await expectProblem(response, 400, 'customer-api.validation.failed');
    expect(problem.errors).toEqual(expect.arrayContaining([expect.objectContaining(error)]));
  });

  it.each([
    { label: 'a JSON body', contentType: 'application/json', body: JSON.stringify({ kind: 'items', duplicateStrategy: 'skip', file: 'sku,name' }) },
    { label: 'a raw CSV body', contentType: 'text/csv', body: 'sku,name\nA,a\n' },
    { label: 'multipart without a boundary', contentType: 'multipart/form-data', body: 'sku,name\nA,a\n' },
    { label: 'urlencoded form', contentType: 'application/x-www-form-urlencoded', body: 'kind=items&duplicateStrategy=skip&file=x' },
  ])('answers 415 for $label', async ({ contentType, body }) => {
    // Prepare
    const { key } = await newKey();

    // Act
    const response = await postImport(key, body, { 'content-type': contentType });

    // Assess
    await expectProblem(response, 415, 'customer-api.request.unsupported-media-type');
  });

  it.each([
    { missing: 'kind', submission: { omit: ['kind' as const] } },
    { missing: 'duplicateStrategy', submission: { omit: ['duplicateStrategy' as const] } },
    { missing: 'file', submission: { file: null } },
  ])('answers 400 naming the form field when $missing is missing', async ({ missing, submission }) => {
    // Prepare
    const { key } = await newKey();

    // Act
    const response = await submitImport(key, submission);

    // Assess
    const problem = await expectProblem(response, 400, 'customer-api.validation.failed');
    expect(problem.errors).toEqual([expect.objectContaining({ location: 'form', name: missing })]);
  });

  it.each(['overwrite', 'SKIP', ''])('answers 400 for duplicateStrategy %j', async (duplicateStrategy) => {
    // Prepare
    const { key } = await newKey();

    // Act
    const response = await submitImport(key, { duplicateStrategy });

    // Assess
    const problem = await expectProblem(response, 400, 'customer-api.validation.failed');
    expect(problem.errors).toEqual([expect.objectContaining({ location: 'form', name: 'duplicateStrategy' })]);
  });

  it('answers 404 unknown-kind for a kind that does not exist, and lets the corrected retry use the same key', async () => {
    // Prepare
    const { key } = await newKey();

    // Act
    const response = await submitImport(key, { kind: 'widgets', idempotencyKey: 'kind-typo' });
    const corrected = await submitImport(key, { kind: 'items', idempotencyKey: 'kind-typo' });

    // Assess: the 404 was decided before the write began, so it did not consume the key
    await expectProblem(response, 404, 'customer-api.imports.unknown-kind');
    expect(corrected.status).toBe(202);
    expect(corrected.headers.get('idempotent-replayed')).toBeNull();
  });

  it('answers 400 key-missing without an Idempotency-Key', async () => {
    // Prepare
    const { key } = await newKey();

    // Act
    const response = await submitImport(key, { idempotencyKey: null });

    // Assess
    await expectProblem(response, 400, 'customer-api.idempotency.key-missing');
  });

  it.each([
    { label: 'Latin-1 bytes', file: Buffer.from('sku,name\nA1,café\n', 'latin1'), code: 'not-utf8' },
    { label: 'UTF-16', file: Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('sku,name\nA1,a\n', 'utf16le')]), code: 'not-utf8' },
    { label: 'an empty file', file: '', code: 'empty-file' },
    { label: 'only blank lines', file: '\n\r\n,,\n', code: 'empty-file' },
    { label: 'no header row', file: 'A1,Alpha\nA2,Beta\n', code: 'missing-required-column' },
    { label: 'a missing required column', file: 'sku,unit\nA1,ea\n', code: 'missing-required-column' },
    { label: 'a column named twice', file: 'sku,name,SKU\nA1,a,A1\n', code: 'duplicate-column' },
    { label: 'an unclosed quote', file: 'sku,name\n"A1,a\nA2,b\n', code: 'not-csv' },
    { label: 'NUL bytes', file: 'sku,name\nA1,a\u0000b\n', code: 'not-csv' },
    { label: '100,001 data rows', file: 'sku,name\n' + Array.from({ length: 100_001 }, (_, index) => `X${index},a`).join('\n'), code: 'too-many-rows' },
  ])('fails the job with failure.code $code for $label', async ({ file, code }) => {
    // Prepare
    const { key, organizationId } = await newKey();

    // Act
    const job = await importAndWait(key, { file });

    // Assess
    expect(job.status).toBe('failed');
    expect(job.failure).toEqual({ code, message: expect.any(String) });
    expect(job.counts).toEqual({ totalRows: 0, processedRows: 0, created: 0, updated: 0, skipped: 0, failed: 0 });
    expect(job.completedAt).not.toBeNull();
    // Failed straight from queued, it still says when processing began (the same instant it ended).
    expect(job.startedAt).toBe(job.completedAt);
    expect((await allRowErrors(key, job.id)).errors).toEqual([]);
    expect(await feedOf(organizationId)).toEqual([]);
  });
});

describe('tenant isolation', () => {
  it.each(['', '/errors'])('GET /v1/imports/jobs/{id}%s answers 404 for another organization’s job, exactly as for an unknown id', async (suffix) => {
    // Prepare
    const owner = await newKey();
    const stranger = await newKey();
    const job = await importAndWait(owner.key, { file: 'sku,name\nT-1,a\n' });
    const unknownId = `imp_${'0'.repeat(26)}`;

    // Act
    const foreign = await callApi(`/v1/imports/jobs/${job.id}${suffix}`, { key: stranger.key });
    const unknown = await callApi(`/v1/imports/jobs/${unknownId}${suffix}`, { key: stranger.key });
    const own = await callApi(`/v1/imports/jobs/${job.id}${suffix}`, { key: owner.key });

    // Assess
    const { traceId: _a, instance: _b, ...foreignProblem } = await expectProblem(foreign, 404, 'customer-api.imports.not-found');
    const { traceId: _c, instance: _d, ...unknownProblem } = await expectProblem(unknown, 404, 'customer-api.imports.not-found');
    expect(foreignProblem).toEqual(unknownProblem);
    expect(own.status).toBe(200);
  });

  it.each(['', '/errors'])('GET /v1/imports/jobs/{id}%s answers 404 for malformed ids', async (suffix) => {
    // Prepare
    const { key } = await newKey();
    const malformed = ['nope', 'imp_', 'imp_short', `imp_${'A'.repeat(41)}`, 'imp_01J%2F..%2F', 'IMP_01JABCDEFGHJKMNPQRSTVWXYZ', "imp_01J'OR'1'='1"];

    // Act
    const responses = await Promise.all(malformed.map((id) => callApi(`/v1/imports/jobs/${encodeURIComponent(id)}${suffix}`, { key })));

    // Assess
    for (const response of responses) await expectProblem(response, 404, 'customer-api.imports.not-found');
  });
});

describe('GET /v1/imports/kinds', () => {
  it('lists both kinds with columns, natural key, strategies and limits', async () => {
    // Prepare
    const { key } = await newKey();

    // Act
    const response = await callApi('/v1/imports/kinds', { key });
    const body = (await response.json()) as { data: Array<Record<string, unknown> & { columns: Array<{ name: string; required: boolean }> }>; page: unknown };

    // Assess
    expect(response.status).toBe(200);
    expect(body.page).toEqual({ nextCursor: null });
    expect(body.data.map((kind) => kind.kind)).toEqual([
      'items',
      'locations',
      'stock-adjustments',
      'stock-transfers',
      'stock-counts',
      'po-receipts',
      'boms',
      'builds',
    ]);
    const [items, locations] = body.data;
    expect(items).toMatchObject({ naturalKey: ['sku'], duplicateStrategies: ['skip', 'update', 'fail'], maxFileBytes: 4_194_304, maxRows: 100_000 });
    expect(items?.columns.map((column) => [column.name, column.required])).toEqual([
      ['sku', true],
      ['name', true],
      ['unit', false],
      ['description', false],
      ['category', false],
      ['barcode', false],
      ['reorderPoint', false],
      ['trackingMode', false],
    ]);
    expect(locations).toMatchObject({ naturalKey: ['code'], duplicateStrategies: ['skip', 'update', 'fail'], maxFileBytes: 4_194_304, maxRows: 100_000 });
    expect(locations?.columns.map((column) => [column.name, column.required])).toEqual([
      ['code', true],
      ['name', true],
      ['type', false],
      ['parentCode', false],
    ]);
    expect(locations?.columns.find((column) => column.name === 'type')).toMatchObject({ type: 'enum', values: ['warehouse', 'zone', 'bin'] });
  });

  it('pages with limit=1 and a cursor bound to the organization', async () => {
    // Prepare
    const { key } = await newKey();
    const other = await newKey();

    // Act
    const first = (await (await callApi('/v1/imports/kinds?limit=1', { key })).json()) as { data: Array<{ kind: string }>; page: { nextCursor: string } };
    const second = (await (await callApi(`/v1/imports/kinds?limit=1&cursor=${encodeURIComponent(first.page.nextCursor)}`, { key })).json()) as {
      data: Array<{ kind: string }>;
      page: { nextCursor: string | null };
    };
    const foreign = await callApi(`/v1/imports/kinds?limit=1&cursor=${encodeURIComponent(first.page.nextCursor)}`, { key: other.key });
    const tooLarge = await callApi('/v1/imports/kinds?limit=201', { key });

    // Assess
    expect(first.data.map((kind) => kind.kind)).toEqual(['items']);
    expect(typeof first.page.nextCursor).toBe('string');
    expect(second.data.map((kind) => kind.kind)).toEqual(['locations']);
    expect(typeof second.page.nextCursor).toBe('string');
    const third = (await (await callApi(`/v1/imports/kinds?limit=1&cursor=${encodeURIComponent(second.page.nextCursor ?? '')}`, { key })).json()) as {
      data: Array<{ kind: string }>;
      page: { nextCursor: string | null };
    };
    expect(third.data.map((kind) => kind.kind)).toEqual(['stock-adjustments']);
    // …and so on to the last kind, after which there is no next page
    const last = (await (await callApi(`/v1/imports/kinds?limit=5&cursor=${encodeURIComponent(third.page.nextCursor ?? '')}`, { key })).json()) as {
      data: Array<{ kind: string }>;
      page: { nextCursor: string | null };
    };
    expect(last.data.map((kind) => kind.kind)).toEqual(['stock-transfers', 'stock-counts', 'po-receipts', 'boms', 'builds']);
    expect(last.page.nextCursor).toBeNull();
    await expectProblem(foreign, 400, 'customer-api.pagination.invalid-cursor');
    await expectProblem(tooLarge, 400, 'customer-api.validation.failed');
  });
});

describe('submission rate limit', () => {
  it('answers 429 with Retry-After to the 21st submission of a key within one window', { timeout: 150_000 }, async () => {
    // Act
    const statuses = await withinOneWindow(async (inWindow) => {
      const { key } = await newKey();
      const seen: number[] = [];
      for (let index = 0; index < 21; index += 1) {
        if (!inWindow()) return undefined;
        const response = await submitImport(key, { file: `sku,name\nRL-${index},a\n` });
        seen.push(response.status);
        if (response.status === 429) {
          expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
          await expectProblem(response, 429, 'customer-api.rate-limit.exceeded');
        } else await response.arrayBuffer();
      }
      return seen;
    });

    // Assess
    expect(statuses).toEqual([...Array.from({ length: 20 }, () => 202), 429]);
  });
});
