import { describe, expect, it } from 'vitest';
import { MemoryExportWorld, stockRecord } from '../../support/export-harness.ts';

/**
 * A `stock-records` export is exactly the stock as of `asOfEventId` (docs/exports.md "Snapshots"),
 * on concrete sequences of writes that commit while it runs: a record at 0 at the snapshot is
 * listed with 0 (unless `nonZero`), a record created after it is not, and a rolled-back row
 * carries the `updatedAt` it had then.
 */

const ORG = 'org_snapshot_unit';
const AT_S = '2026-11-20T08:00:00.000Z';
const LATER = '2026-11-27T10:00:00.000Z';
const id = (n: number) => `stk_${String(n).padStart(10, '0')}`;

/** Before S: record 1 at 5, record 2 at 3 then taken to 0, record 3 at 7 (untouched later). */
function worldAtSnapshot(): MemoryExportWorld {
  const world = new MemoryExportWorld();
  world.stock.change(ORG, id(1), 5, '2026-11-10T00:00:00.000Z', stockRecord(id(1), 0));
  world.stock.change(ORG, id(2), 3, '2026-11-11T00:00:00.000Z', stockRecord(id(2), 0));
  world.stock.change(ORG, id(2), 0, AT_S);
  world.stock.change(ORG, id(3), 7, '2026-11-12T00:00:00.000Z', stockRecord(id(3), 0));
  return world;
}

/** After S, during the export's first page: record 1 5→8→2, record 2 0→4, record 4 created with 6. */
function writeAfterSnapshot(world: MemoryExportWorld): void {
  let done = false;
  world.stock.onPage = () => {
    if (done) return;
    done = true;
    world.stock.change(ORG, id(1), 8, LATER);
    world.stock.change(ORG, id(1), 2, LATER);
    world.stock.change(ORG, id(2), 4, LATER);
    world.stock.change(ORG, id(4), 6, LATER, stockRecord(id(4), 0));
  };
}

function rowsOf(file: string): string[] {
  return file.split('\r\n').slice(1, -1).map((line) => line.split(',').filter((_, column) => [0, 6, 7].includes(column)).join(' '));
}

describe('stock-records snapshot', () => {
  it('lists a record at 0 at the snapshot with 0, leaves out one created after it, and gives rolled-back rows their updatedAt at the snapshot', async () => {
    // Prepare
    const world = worldAtSnapshot();
    const job = world.submit(ORG, 'stock-records');
    writeAfterSnapshot(world);

    // Act
    await world.processor({ pageSize: 2, partBytes: 1 << 20 }).process(ORG, job.id, () => 120_000);

    // Assess
    expect(world.job(job.id).status).toBe('succeeded');
    expect(rowsOf(world.file(job.id))).toEqual([`${id(1)} 5 2026-11-10T00:00:00.000Z`, `${id(2)} 0 ${AT_S}`, `${id(3)} 7 2026-11-12T00:00:00.000Z`]);
    expect(world.job(job.id).rowCount).toBe(3);
  });

  it('with nonZero, leaves out exactly the records at 0 at the snapshot, whatever they hold now', async () => {
    // Prepare
    const world = worldAtSnapshot();
    const job = world.submit(ORG, 'stock-records', 'csv', { nonZero: true });
    writeAfterSnapshot(world);

    // Act
    await world.processor({ pageSize: 2, partBytes: 1 << 20 }).process(ORG, job.id, () => 120_000);

    // Assess
    expect(rowsOf(world.file(job.id))).toEqual([`${id(1)} 5 2026-11-10T00:00:00.000Z`, `${id(3)} 7 2026-11-12T00:00:00.000Z`]);
  });
});
