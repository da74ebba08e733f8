import { describe, expect, it } from 'vitest';
import type { ImportRecords } from '../../lib/imports/domain/kind-definition.ts';
import type { Location } from '../../lib/inventory/domain/location.ts';
import type { StoreWrite } from '../../lib/platform/dynamo/transaction-writer.ts';
import { uniqueOrganization } from '../support/api.ts';
import { importJobsStore, locationsOf, runImportInProcess, watchedImportRecords } from '../support/imports.ts';

/**
 * Two `locations` jobs at the same time can never make a parent cycle (docs/imports.md
 * "locations"): one sets A's parent to B, the other B's parent to A. Each job conditions its
 * commit on the ancestors it read, so the one that commits second is decided again on the tree
 * as it is now, and refuses its row.
 */

const csv = (...lines: string[]) => lines.join('\n') + '\n';

/** The import records, with `interfere` run once, right after the job has read its own records (and the tree above them). */
// 1: the parentCode references; 2: the rows' own records (read ahead of the chunk)
const recordsInterferingAfterRead = (interfere: () => Promise<void>) =>
  watchedImportRecords({ afterRead: (entity, count) => (entity === 'location' && count === 2 ? interfere() : undefined) });

const runJob = (organizationId: string, file: string, records?: ImportRecords<StoreWrite>) =>
  runImportInProcess(organizationId, 'locations', file, { duplicateStrategy: 'update', ...(records ? { records } : {}) });

/** Whether following parent links from `start` comes back to a location already seen. */
function cycleFrom(start: string, parents: Map<string, string | null>): boolean {
  const seen = new Set<string>();
  for (let current: string | null | undefined = start; current; current = parents.get(current)) {
    if (seen.has(current)) return true;
    seen.add(current);
  }
  return false;
}

describe('two locations jobs that would close a parent cycle between them', () => {
  it('never do: the second to commit is decided again and refuses its row (invalid-value on parentCode)', async () => {
    // Prepare: WH > A, and B at the top; job 1 moves A under B, job 2 (run while job 1 is deciding) B under A
    const organizationId = uniqueOrganization();
    await runJob(organizationId, csv('code,name,parentCode', 'WH,Warehouse,', 'A,Zone A,WH', 'B,Zone B,'));
    let second: Awaited<ReturnType<typeof runJob>> | undefined;
    const moveBUnderA = async () => {
      second = await runJob(organizationId, csv('code,name,parentCode', 'B,Zone B,A'));
    };

    // Act
    const first = await runJob(organizationId, csv('code,name,parentCode', 'A,Zone A,B'), recordsInterferingAfterRead(moveBUnderA));
    const stored = await locationsOf(organizationId, ['WH', 'A', 'B']);
    const parents = new Map([...stored].map(([code, { record }]) => [code, (record as Location).parentCode]));
    const firstErrors = await importJobsStore().listRowErrors(organizationId, first.id, undefined, 10);

    // Assess: job 2 committed while job 1 was deciding; job 1 was decided again and refused
    expect(second?.counts).toMatchObject({ updated: 1, failed: 0 });
    expect(first.counts).toMatchObject({ updated: 0, failed: 1 });
    expect(firstErrors.errors.map((error) => [error.rowNumber, error.column, error.value, error.code])).toEqual([[1, 'parentCode', 'B', 'invalid-value']]);
    expect(Object.fromEntries(parents)).toEqual({ WH: null, A: 'WH', B: 'A' });
    for (const code of parents.keys()) expect(cycleFrom(code, parents), code).toBe(false);
  });
});
