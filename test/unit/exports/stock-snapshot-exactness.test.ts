import { describe, expect, it } from 'vitest';
import { MemoryExportWorld, stockRecord } from '../../support/export-harness.ts';

/**
 * A `stock-records` export is exactly the stock as of `asOfEventId` (docs/exports.md "Snapshots"),
 * on concrete sequences of writes that commit while it runs: a record at 0 at the snapshot is
 * listed with 0 (unless `nonZero`), a record created after it is not, and a rolled-back row
 * carries the `updatedAt` and the `reserved` it had then (`available` following from both).
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
  return file
    .split('\r\n')
    .slice(1, -1)
    .map((line) =>
      line
        .split(',')
        .filter((_, column) => [0, 6, 7].includes(column))
        .join(' '),
    );
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

  it('gives each row its reserved and available at the snapshot: reserved rolled back from the previousReserved of stock.changed', async () => {
    // Prepare: before S, 2 of record 1 reserved, and 1 of record 3 (by a writer that emitted no event
    // with previousReserved); after S, 3 more of record 1 reserved.
    const world = worldAtSnapshot();
    const reserve = (n: number, reserved: number, at: string) => {
      const before = world.stock.records.get(id(n))!;
      world.stock.records.set(id(n), { ...before, reserved, updatedAt: at });
      const { itemId, sku, locationId, locationCode, lot, onHand } = before;
      const data = {
        stockRecordId: id(n),
        itemId,
        sku,
        locationId,
        locationCode,
        lot,
        previousQuantity: onHand,
        previousUpdatedAt: before.updatedAt,
        quantity: onHand,
        delta: 0,
        previousReserved: before.reserved ?? 0,
        reserved,
      };
      world.events.append(ORG, 'stock.changed', data, at);
    };
    reserve(1, 2, '2026-11-15T00:00:00.000Z');
    world.stock.records.set(id(3), { ...world.stock.records.get(id(3))!, reserved: 1 });
    const job = world.submit(ORG, 'stock-records');
    world.stock.onPage = () => {
      if (world.stock.records.get(id(1))?.reserved === 2) reserve(1, 5, LATER);
    };

    // Act
    await world.processor({ pageSize: 2, partBytes: 1 << 20 }).process(ORG, job.id, () => 120_000);

    // Assess: stockRecordId, quantity, updatedAt, reserved, available
    const rows = world
      .file(job.id)
      .split('\r\n')
      .slice(0, -1)
      .map((line) =>
        line
          .split(',')
          .filter((_, column) => [0, 6, 7, 8, 9].includes(column))
          .join(' '),
      );
    expect(rows).toEqual([
      'stockRecordId quantity updatedAt reserved available',
      `${id(1)} 5 2026-11-15T00:00:00.000Z 2 3`,
      `${id(2)} 0 ${AT_S} 0 0`,
      `${id(3)} 7 2026-11-12T00:00:00.000Z 1 6`,
    ]);
  });
});
