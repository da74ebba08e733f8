import { createHash, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ExportJob } from '../../lib/exports/domain/job.ts';
import { EXPORT_KINDS } from '../../lib/exports/domain/kinds.ts';
import { callApi, createTestKey } from '../support/api.ts';
import { csvRecords, exportAndDownload, jsonlRecords, postExport, waitForExport } from '../support/exports.ts';
import { csvOf, feedOf, importAndWait } from '../support/imports.ts';
import { expectProblem } from '../support/problem.ts';

/**
 * Exports over HTTP against `npm start` (its SQS poller runs the export worker; docs/exports.md):
 * every kind in both formats, downloads through the presigned link, the round trip through the
 * import path, the hostile-cell escape, `export.completed` in the feed, and the documented errors.
 */

async function newKey() {
  const created = await createTestKey();
  return { key: created.key, organizationId: created.record.organizationId };
}

const sha256 = (content: string) => createHash('sha256').update(content).digest('hex');

const HOSTILE_NAMES = ['=SUM(A1:A9)', '+1 555 0100', '-5 apples', '@cmd', '\tTabbed', "'quoted already"];

/** An organization with items (hostile names too), locations, stock, a BOM and a failed import row. */
async function world(key: string): Promise<{ failedImportId: string }> {
  await importAndWait(key, {
    kind: 'items',
    duplicateStrategy: 'fail',
    file: csvOf(
      ['sku', 'name', 'unit', 'description', 'category', 'barcode', 'reorderPoint', 'trackingMode'],
      [
        ['A-1', 'Apple', 'ea', 'Red, crisp', 'fruit', '4006381333931', '5', 'none'],
        ['B-2', 'Banana "ripe"', 'kg', '', '', '', '', 'lot'],
        ['C-3', 'Line\nbreak', 'ea', '', '', '', '0.5', 'none'],
        ...HOSTILE_NAMES.map((name, index) => [`H-${index}`, name, 'ea', '', '', '', '', 'none']),
      ],
    ),
  });
  await importAndWait(key, {
    kind: 'locations',
    duplicateStrategy: 'fail',
    file: csvOf(
      ['code', 'name', 'type', 'parentCode'],
      [
        ['WH', 'Warehouse', 'warehouse', ''],
        ['BIN-1', '-Bin one', 'bin', 'WH'],
      ],
    ),
  });
  await importAndWait(key, {
    kind: 'stock-adjustments',
    duplicateStrategy: 'fail',
    file: csvOf(
      ['reference', 'sku', 'locationCode', 'quantityDelta', 'lot'],
      [
        ['R1', 'A-1', 'BIN-1', '10', ''],
        ['R2', 'B-2', 'BIN-1', '2.5', 'L1'],
      ],
    ),
  });
  await importAndWait(key, {
    kind: 'boms',
    duplicateStrategy: 'fail',
    file: csvOf(
      ['bomCode', 'name', 'targetSku', 'componentSku', 'quantity', 'unit', 'scrapPercent', 'notes'],
      [
        ['K1', 'Kit', 'C-3', 'A-1', '2', 'ea', '5', '=note'],
        ['K1', 'Kit', 'C-3', 'B-2', '0.25', '', '', ''],
      ],
    ),
  });
  const failed = await importAndWait(key, {
    kind: 'items',
    duplicateStrategy: 'fail',
    file: csvOf(
      ['sku', 'name', 'reorderPoint'],
      [
        ['A-1', 'Dup', '1'],
        ['Z-9', '=bad', 'x'],
      ],
    ),
  });
  return { failedImportId: failed.id };
}

describe('POST /v1/exports, every kind in both formats', () => {
  it('writes each kind as CSV and JSON Lines with the declared columns, the same rows in both', { timeout: 180_000 }, async () => {
    // Prepare: the exports go out under a second key of the organization, whose submission budget (20 a minute) the world's imports did not use
    const { key: worldKey, organizationId } = await newKey();
    const { failedImportId } = await world(worldKey);
    const { key } = await createTestKey({ organizationId });
    const filtersOf = (kind: string) => (kind === 'import-row-errors' ? { importJobId: failedImportId } : {});
    const expectedRows: Record<string, number> = { items: 9, locations: 2, boms: 2, 'stock-records': 2, movements: 2, 'import-row-errors': 2 };

    for (const declaration of EXPORT_KINDS) {
      // Act
      const csv = await exportAndDownload(key, { kind: declaration.kind, format: 'csv', filters: filtersOf(declaration.kind) });
      const jsonl = await exportAndDownload(key, { kind: declaration.kind, format: 'jsonl', filters: filtersOf(declaration.kind) });

      // Assess: the declared header, CRLF, the digest and size of what was downloaded
      const header = csv.content.slice(0, csv.content.indexOf('\r\n')).split(',');
      expect(header.slice(-declaration.columns.length), declaration.kind).toEqual(declaration.columns.map((column) => column.name));
      expect(csv.job.sha256).toBe(sha256(csv.content));
      expect(csv.job.fileSizeBytes).toBe(Buffer.byteLength(csv.content));
      expect(csv.download.contentType).toMatch(/^text\/csv/);
      expect(jsonl.download.fileName).toBe(`${declaration.kind}-${jsonl.job.id}.jsonl`);
      const records = csvRecords(csv.content);
      const objects = jsonlRecords(jsonl.content);
      expect(records.length, declaration.kind).toBe(csv.job.rowCount);
      expect(objects.length, declaration.kind).toBe(jsonl.job.rowCount);
      if (expectedRows[declaration.kind] !== undefined) expect(csv.job.rowCount, declaration.kind).toBe(expectedRows[declaration.kind]);
      // The audit log grows between the two exports (each export adds entries): compare the others.
      if (declaration.kind !== 'audit-events')
        expect(
          objects.map((object) => Object.keys(object)),
          declaration.kind,
        ).toEqual(records.map((record) => Object.keys(record)));
      for (const column of declaration.columns.filter((candidate) => candidate.type === 'number')) {
        for (const object of objects)
          expect(object[column.name] === null || typeof object[column.name] === 'number', `${declaration.kind}.${column.name}`).toBe(true);
      }
    }
  });

  it('writes numbers as numbers and escapes hostile text cells with a leading quote', { timeout: 60_000 }, async () => {
    // Prepare
    const { key } = await newKey();
    await world(key);

    // Act
    const { content } = await exportAndDownload(key, { kind: 'items', filters: { sku: 'H-0' } });
    const all = await exportAndDownload(key, { kind: 'items' });

    // Assess
    expect(content).toBe("sku,name,unit,description,category,barcode,reorderPoint,trackingMode\r\nH-0,'=SUM(A1:A9),ea,,,,,none\r\n");
    const names = new Map(csvRecords(all.content).map((record) => [record.sku, record.name]));
    expect(HOSTILE_NAMES.map((_, index) => names.get(`H-${index}`))).toEqual([
      "'=SUM(A1:A9)",
      "'+1 555 0100",
      "'-5 apples",
      "'@cmd",
      "'\tTabbed",
      "'quoted already",
    ]);
    expect(names.get('C-3')).toBe('Line\nbreak');
    expect(all.content).toContain('C-3,"Line\nbreak",ea,,,,0.5,none\r\n');
    expect(all.content).toContain('B-2,"Banana ""ripe""",kg,,,,,lot\r\n');
  });
});

describe('Round trip: an export imported again with update changes nothing', () => {
  it.each(['items', 'locations', 'boms'])('%s: every row skipped, no event', { timeout: 90_000 }, async (kind) => {
    // Prepare
    const { key, organizationId } = await newKey();
    await world(key);
    const { content, job } = await exportAndDownload(key, { kind });
    const eventsBefore = (await feedOf(organizationId)).length;

    // Act
    const imported = await importAndWait(key, { kind, duplicateStrategy: 'update', file: content, fileName: `${kind}.csv` });

    // Assess
    expect(imported.status).toBe('succeeded');
    expect(imported.counts).toMatchObject({ created: 0, updated: 0, failed: 0 });
    // BOM rows are lines: the unit is the BOM, skipped as a whole.
    expect(imported.counts.processedRows).toBe(job.rowCount);
    expect(imported.warnings).toEqual([]);
    expect((await feedOf(organizationId)).length).toBe(eventsBefore);
  });
});

describe('export.completed', () => {
  it('is in the feed with the documented payload, its downloadUrl minting a link', { timeout: 60_000 }, async () => {
    // Prepare
    const { key } = await newKey();
    await world(key);

    // Act
    const { job } = await exportAndDownload(key, { kind: 'stock-records', format: 'jsonl', filters: { nonZero: true } });
    const feed = await callApi('/v1/events?limit=200', { key });
    const events = ((await feed.json()) as { data: Array<{ id: string; type: string; data: Record<string, unknown> }> }).data;

    // Assess
    const completed = events.filter((event) => event.type === 'export.completed');
    expect(completed.map((event) => event.data)).toEqual([
      { exportId: job.id, kind: 'stock-records', rowCount: 2, downloadUrl: `/v1/exports/${job.id}/download-url`, expiresAt: job.expiresAt },
    ]);
    expect(Date.parse(job.expiresAt!) - Date.parse(job.completedAt!)).toBe(7 * 86_400_000);
    expect(events.findIndex((event) => event.id === job.asOfEventId)).toBeLessThan(events.findIndex((event) => event.type === 'export.completed'));
    const link = await callApi(completed[0]!.data.downloadUrl as string, { key });
    expect(link.status).toBe(200);
  });
});

describe('Documented errors', () => {
  it('answers 409 not-ready before success, 404 for a foreign export, and replays the 202', { timeout: 60_000 }, async () => {
    // Prepare
    const { key } = await newKey();
    const other = await newKey();
    const idempotencyKey = randomUUID();

    // Act
    const first = await postExport(key, { kind: 'locations' }, idempotencyKey);
    const accepted = (await first.json()) as ExportJob;
    const early = await callApi(`/v1/exports/${accepted.id}/download-url`, { key });
    const replay = await postExport(key, { kind: 'locations' }, idempotencyKey);
    const reused = await postExport(key, { kind: 'items' }, idempotencyKey);
    const foreign = await callApi(`/v1/exports/${accepted.id}`, { key: other.key });
    const foreignLink = await callApi(`/v1/exports/${accepted.id}/download-url`, { key: other.key });
    await waitForExport(key, accepted.id);

    // Assess
    expect(first.status).toBe(202);
    expect(first.headers.get('location')).toBe(`/v1/exports/${accepted.id}`);
    expect(accepted).toMatchObject({ kind: 'locations', format: 'csv', filters: {}, status: 'queued', rowCount: 0, failure: null, asOfEventId: null });
    // Finished this fast is possible; otherwise not ready.
    if (early.status !== 200) await expectProblem(early, 409, 'customer-api.exports.not-ready');
    expect(replay.status).toBe(202);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await replay.json()).toEqual(accepted);
    await expectProblem(reused, 409, 'customer-api.idempotency.key-reused');
    await expectProblem(foreign, 404, 'customer-api.exports.not-found');
    await expectProblem(foreignLink, 404, 'customer-api.exports.not-found');
  });

  it('refuses an unknown kind, a missing required filter, an unknown filter and a bad format with 400', async () => {
    // Prepare
    const { key } = await newKey();

    // Act
    const unknownKind = await postExport(key, { kind: 'nope' });
    const missingFilter = await postExport(key, { kind: 'import-row-errors' });
    const unknownFilter = await postExport(key, { kind: 'items', filters: { colour: 'red' } });
    const badFormat = await postExport(key, { kind: 'items', format: 'xlsx' });
    const badDate = await postExport(key, { kind: 'movements', filters: { fromUtc: 'yesterday' } });

    // Assess
    expect((await expectProblem(unknownKind, 400, 'customer-api.validation.failed')).errors).toEqual([
      expect.objectContaining({ pointer: '/kind', code: 'invalid-value' }),
    ]);
    expect((await expectProblem(missingFilter, 400, 'customer-api.validation.failed')).errors).toEqual([
      expect.objectContaining({ pointer: '/filters/importJobId', code: 'required' }),
    ]);
    expect((await expectProblem(unknownFilter, 400, 'customer-api.validation.failed')).errors).toEqual([
      expect.objectContaining({ pointer: '/filters/colour', code: 'unknown-filter' }),
    ]);
    await expectProblem(badFormat, 400, 'customer-api.validation.failed');
    expect((await expectProblem(badDate, 400, 'customer-api.validation.failed')).errors).toEqual([expect.objectContaining({ pointer: '/filters/fromUtc' })]);
  });

  it('lists the kinds with their columns and filters', async () => {
    // Prepare
    const { key } = await newKey();

    // Act
    const response = await callApi('/v1/exports/kinds', { key });
    const body = (await response.json()) as {
      data: Array<{ kind: string; filters: Array<{ name: string; required: boolean }> }>;
      page: { nextCursor: string | null };
    };

    // Assess
    expect(response.status).toBe(200);
    expect(body.data.map((kind) => kind.kind)).toEqual([
      'items',
      'locations',
      'boms',
      'stock-records',
      'reservations',
      'movements',
      'audit-events',
      'import-row-errors',
    ]);
    expect(body.data.find((kind) => kind.kind === 'import-row-errors')?.filters).toEqual([expect.objectContaining({ name: 'importJobId', required: true })]);
    expect(body.page.nextCursor).toBeNull();
  });
});
