import { describe, expect, it } from 'vitest';
import type { ExportJobState } from '../../lib/exports/domain/job.ts';
import { ExportSubmitter } from '../../lib/exports/domain/submit.ts';
import { ExportJobsStore } from '../../lib/exports/store/export-jobs-store.ts';
import { ExportQueue } from '../../lib/exports/store/export-queue.ts';
import { ExportSlotsStore } from '../../lib/exports/store/export-slots.ts';
import { EXPORT_QUEUE_ENV_VAR } from '../../lib/platform/storage/tables.ts';
import type { StoreWrite } from '../../lib/platform/dynamo/transaction-writer.ts';
import { uniqueOrganization } from '../support/api.ts';
import { tableName, transactionWriter } from '../support/events.ts';

/**
 * The organization's running-export slots on DynamoDB Local (docs/exports.md "Fairness"): the
 * conditional update that takes one, the release that commits with a transaction, a slot taken
 * back from a holder that is no longer running, and the delayed message of a waiting export.
 */

const jobs = () => new ExportJobsStore(tableName('inventory'));
const slots = () => new ExportSlotsStore(tableName('inventory'), jobs());

async function queuedExport(organizationId: string): Promise<ExportJobState> {
  const plan = new ExportSubmitter<StoreWrite>({ jobs: jobs(), queue: { send: async () => undefined } }).prepare(organizationId, {
    kind: 'items',
    format: 'csv',
    filters: {},
  });
  await transactionWriter().run({ organizationId, actor: { type: 'system', id: 'export-tests' }, traceId: null }, async () => plan);
  return plan.result;
}

async function release(organizationId: string, jobId: string): Promise<void> {
  await transactionWriter().run({ organizationId, actor: { type: 'system', id: 'export-tests' }, traceId: null }, async () => ({
    writes: [slots().releaseWrite(organizationId, jobId)],
    events: [],
    result: undefined,
  }));
}

describe('export slots', () => {
  it('holds at most the cap per organization, again for a holder, independently per organization; a released slot is taken by the next', async () => {
    // Prepare
    const busy = uniqueOrganization();
    const other = uniqueOrganization();
    const [first, second, third] = [await queuedExport(busy), await queuedExport(busy), await queuedExport(busy)];
    const otherJob = await queuedExport(other);

    // Act
    const taken = [await slots().acquire(busy, first.id, 2), await slots().acquire(busy, second.id, 2), await slots().acquire(busy, third.id, 2)];
    const again = await slots().acquire(busy, first.id, 2);
    const otherTaken = await slots().acquire(other, otherJob.id, 2);
    await release(busy, first.id);
    const afterRelease = await slots().acquire(busy, third.id, 2);

    // Assess
    expect(taken).toEqual([true, true, false]);
    expect(again).toBe(true);
    expect(otherTaken).toBe(true);
    expect(afterRelease).toBe(true);
    expect((await slots().holders(busy)).sort()).toEqual([second.id, third.id].sort());
  });

  it('takes a slot back from a holder that is finished or gone', async () => {
    // Prepare: two slots held by exports that no longer run (one never existed)
    const organizationId = uniqueOrganization();
    const waiting = await queuedExport(organizationId);
    await slots().acquire(organizationId, 'exp_gone0000000000000000000', 2);
    await slots().acquire(organizationId, 'exp_gone0000000000000000001', 2);

    // Act
    const taken = await slots().acquire(organizationId, waiting.id, 2);

    // Assess
    expect(taken).toBe(true);
    expect(await slots().holders(organizationId)).toEqual([waiting.id]);
  });
});

describe('a waiting export’s message', () => {
  it('is sent with a delay the queue accepts (its body checked against the MD5 the queue returns)', async () => {
    // Prepare: a job that does not exist, so the test server's worker finds nothing to do with it
    const queue = new ExportQueue(process.env[EXPORT_QUEUE_ENV_VAR] ?? '');

    // Act + Assess
    await expect(queue.sendLater({ organizationId: uniqueOrganization(), jobId: 'exp_none000000000000000000000' }, 1)).resolves.toBeUndefined();
  });
});
