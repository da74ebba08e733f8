import type { SQSBatchResponse } from 'aws-lambda';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { handler } from '../../functions/workers/process-import-jobs.ts';
import { MAX_STORED_ROW_ERRORS } from '../../lib/imports/domain/job.ts';
import type { JobHandoff } from '../../lib/imports/domain/pipeline/ports.ts';
import { ImportJobProcessor } from '../../lib/imports/domain/pipeline/process-job.ts';
import { bulkChunkActions, type StoreWrite } from '../../lib/platform/dynamo/transaction-writer.ts';
import { uniqueOrganization } from '../support/api.ts';
import { transactionWriter } from '../support/events.ts';
import { commitQueuedJob, filesStore, importJobsStore, importRecords, jobMessage, sqsEvent, sqsRecord, storedJob, workerContext } from '../support/imports.ts';

/**
 * A hostile file on the local stack (docs/imports.md "Row errors" and "Guarantees"): 100,000
 * item rows, each with 6 invalid cells. It must end in one invocation with bounded writes, and
 * never cost another tenant's message in the same batch its turn.
 */

const HOSTILE_ROWS = 100_000;
const ERRORS_PER_ROW = 6;

/** Every row: a sku, unit and barcode with a control character, no name, a word as reorderPoint, an unknown trackingMode (≈ 1.7 MB). */
function hostileItemsFile(rows: number): string {
  const lines = ['sku,name,unit,barcode,reorderPoint,trackingMode'];
  for (let index = 0; index < rows; index += 1) lines.push(`\u0001${index},,\u0001,\u0001,x,y`);
  return `${lines.join('\n')}\n`;
}

const FINISHED = ['succeeded', 'completed_with_errors', 'failed'];

async function waitUntilFinished(organizationId: string, jobId: string, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = await storedJob(organizationId, jobId);
    if (FINISHED.includes(job.status) || Date.now() > deadline) return job;
    await sleep(250);
  }
}

describe(`a file of ${HOSTILE_ROWS.toLocaleString('en-US')} rows, each with ${ERRORS_PER_ROW} invalid cells`, () => {
  it(`ends completed_with_errors in one invocation: ${MAX_STORED_ROW_ERRORS} errors stored, the rest counted`, { timeout: 120_000 }, async () => {
    // Prepare
    const organizationId = uniqueOrganization();
    const file = hostileItemsFile(HOSTILE_ROWS);
    const { job } = await commitQueuedJob(organizationId, { file });
    const handoffs: JobHandoff[] = [];
    let transactions = 0;
    const writer = transactionWriter();
    const processor = new ImportJobProcessor<StoreWrite>({
      jobs: importJobsStore(),
      files: filesStore(),
      records: importRecords(),
      writer: { run: (context, build, respond) => ((transactions += 1), writer.run(context, build, respond)) },
      continueLater: async (message) => void handoffs.push(message),
      chunkActions: bulkChunkActions(),
    });

    // Act: with the worker's whole time, as one invocation has it
    const started = Date.now();
    const outcome = await processor.process(organizationId, job.id, () => 60_000 - (Date.now() - started));

    // Assess
    expect(outcome).toBe('finished');
    expect(handoffs).toEqual([]);
    const stored = await storedJob(organizationId, job.id);
    expect(stored.status).toBe('completed_with_errors');
    expect(stored.counts).toEqual({ totalRows: HOSTILE_ROWS, processedRows: HOSTILE_ROWS, created: 0, updated: 0, skipped: 0, failed: HOSTILE_ROWS });
    expect({ stored: stored.storedErrors, notStored: stored.unstoredErrors }).toEqual({
      stored: MAX_STORED_ROW_ERRORS,
      notStored: HOSTILE_ROWS * ERRORS_PER_ROW - MAX_STORED_ROW_ERRORS,
    });
    // Writes are bounded: full transactions hold the errors of 16 rows (96 of 98 actions; a row's
    // errors stay together) until the cap; the chunk that reaches it takes every row after it; then the finish.
    const errorsPerChunk = ERRORS_PER_ROW * Math.floor(bulkChunkActions() / ERRORS_PER_ROW);
    expect(transactions).toBe(Math.ceil(MAX_STORED_ROW_ERRORS / errorsPerChunk) + 1);
    const firstPage = await importJobsStore().listRowErrors(organizationId, job.id, undefined, 7);
    expect(firstPage.errors.map((error) => [error.rowNumber, error.column, error.code])).toEqual([
      [1, 'sku', 'invalid-value'],
      [1, 'name', 'required'],
      [1, 'unit', 'invalid-value'],
      [1, 'barcode', 'invalid-value'],
      [1, 'reorderPoint', 'invalid-number'],
      [1, 'trackingMode', 'invalid-value'],
      [2, 'sku', 'invalid-value'],
    ]);
  });

  it("never costs another tenant's message in the same batch its turn, even when the batch runs short of time", { timeout: 120_000 }, async () => {
    // Prepare: the hostile job first in the batch, a small job of another tenant second; the
    // invocation has 15 s, less than the hostile job needs
    const hostileOrganization = uniqueOrganization();
    const otherOrganization = uniqueOrganization();
    const { job: hostile } = await commitQueuedJob(hostileOrganization, { file: hostileItemsFile(HOSTILE_ROWS) });
    const { job: small } = await commitQueuedJob(otherOrganization, { file: 'sku,name\nOK-1,Fine\n' });

    // Act
    const response: SQSBatchResponse = await handler(
      sqsEvent(sqsRecord(jobMessage(hostileOrganization, hostile.id)), sqsRecord(jobMessage(otherOrganization, small.id))),
      workerContext(15_000),
    );

    // Assess: no message is reported failed; what did not fit was handed to fresh messages, which the running worker finishes
    expect(response.batchItemFailures).toEqual([]);
    expect((await waitUntilFinished(otherOrganization, small.id, 30_000)).status).toBe('succeeded');
    expect((await waitUntilFinished(hostileOrganization, hostile.id, 90_000)).counts).toMatchObject({ processedRows: HOSTILE_ROWS, failed: HOSTILE_ROWS });
  });
});

describe('the uploaded file', () => {
  it('streams from S3 in chunks: the worker is never handed the whole file at once', async () => {
    // Prepare: a 1.7 MB file
    const organizationId = uniqueOrganization();
    const file = hostileItemsFile(HOSTILE_ROWS);
    const { job } = await commitQueuedJob(organizationId, { file });

    // Act
    const chunkSizes: number[] = [];
    for await (const chunk of await filesStore().open(job.fileKey)) chunkSizes.push(chunk.length);

    // Assess
    expect(chunkSizes.reduce((sum, size) => sum + size, 0)).toBe(Buffer.byteLength(file));
    expect(chunkSizes.length).toBeGreaterThan(1);
    expect(Math.max(...chunkSizes)).toBeLessThan(Buffer.byteLength(file) / 4);
  });
});
