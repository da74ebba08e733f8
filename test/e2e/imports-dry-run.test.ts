import { describe, expect, it } from 'vitest';
import type { AuditEvent } from '../../lib/platform/audit/types.ts';
import { callApi, createTestKey } from '../support/api.ts';
import { allRowErrors, csvOf, feedOf, getJob, importAndWait, itemsOf, submitAccepted, submitImport, waitForJob } from '../support/imports.ts';
import { expectProblem } from '../support/problem.ts';

/**
 * The `dryRun` form field of POST /v1/imports/jobs over HTTP (docs/imports.md "Dry runs"): the
 * job decides every row and writes nothing but itself; it says it is a dry run, and so do its
 * audit entries.
 */

async function newKey() {
  const created = await createTestKey();
  return { key: created.key, organizationId: created.record.organizationId };
}

/** Two new items and one row without a name. */
const FILE = csvOf(
  ['sku', 'name'],
  [
    ['DRY-1', 'First'],
    ['DRY-2', ''],
    ['DRY-3', 'Third'],
  ],
);

async function auditOf(key: string, kind: string, jobId: string): Promise<AuditEvent> {
  const response = await callApi(`/v1/audit/events?kind=${kind}`, { key });
  const page = (await response.json()) as { data: AuditEvent[] };
  const entry = page.data.find((event) => event.target.id === jobId);
  if (!entry) throw new Error(`No ${kind} audit entry for ${jobId}`);
  return entry;
}

describe('POST /v1/imports/jobs with dryRun', () => {
  it('true: the job is a dry run, with the counts and row errors of the real run, and creates nothing', async () => {
    // Prepare
    const { key, organizationId } = await newKey();

    // Act: the dry run, then the real run of the same file
    const accepted = await submitAccepted(key, { file: FILE, duplicateStrategy: 'fail', dryRun: 'true' });
    const dry = await waitForJob(key, accepted.id);
    const itemsAfterDryRun = await itemsOf(organizationId, ['DRY-1', 'DRY-3']);
    const eventsAfterDryRun = await feedOf(organizationId);
    const real = await importAndWait(key, { file: FILE, duplicateStrategy: 'fail', dryRun: 'false' });

    // Assess: the dry run says so everywhere, decided as the real run did, and wrote no item or event
    expect(accepted.dryRun).toBe(true);
    expect(dry).toMatchObject({
      dryRun: true,
      status: 'completed_with_errors',
      counts: { totalRows: 3, processedRows: 3, created: 2, updated: 0, skipped: 0, failed: 1 },
    });
    expect((await getJob(key, accepted.id)).dryRun).toBe(true);
    expect(real).toMatchObject({ dryRun: false, counts: dry.counts });
    expect((await allRowErrors(key, dry.id)).errors).toEqual((await allRowErrors(key, real.id)).errors);
    expect(itemsAfterDryRun.size).toBe(0);
    expect(eventsAfterDryRun).toEqual([]);
    expect((await itemsOf(organizationId, ['DRY-1', 'DRY-3'])).size).toBe(2);
    expect((await auditOf(key, 'import.submitted', dry.id)).changes).toContainEqual({ field: 'dryRun', from: null, to: true });
    expect((await auditOf(key, 'import.completed', dry.id)).changes).toContainEqual({ field: 'dryRun', from: true, to: true });
    expect((await auditOf(key, 'import.submitted', real.id)).changes).toContainEqual({ field: 'dryRun', from: null, to: false });
    expect((await auditOf(key, 'import.completed', real.id)).changes).toContainEqual({ field: 'dryRun', from: false, to: false });
  });

  it('absent: a real run, shown as dryRun false', async () => {
    // Prepare
    const { key } = await newKey();

    // Act
    const job = await importAndWait(key, { file: csvOf(['sku', 'name'], [['REAL-1', 'Real']]) });

    // Assess
    expect(job).toMatchObject({ dryRun: false, counts: { created: 1 } });
  });

  it.each(['yes', 'TRUE', '1', ''])('answers 400 naming the field for dryRun %j', async (dryRun) => {
    // Prepare
    const { key } = await newKey();

    // Act
    const response = await submitImport(key, { file: FILE, dryRun });

    // Assess
    const problem = await expectProblem(response, 400, 'customer-api.validation.failed');
    expect(problem.errors).toEqual([expect.objectContaining({ location: 'form', name: 'dryRun' })]);
  });
});
