import { describe, expect, it } from 'vitest';
import type { ImportJobState, JobCounts } from '../../../lib/domain/imports/job.ts';
import type { ImportKindDefinition, RecordWrite } from '../../../lib/domain/imports/kind-definition.ts';
import { ImportJobProcessor, type ProcessPorts } from '../../../lib/domain/imports/process-job.ts';
import { DUPLICATE_STRATEGIES, type RowError } from '../../../lib/domain/imports/types.ts';
import type { Location } from '../../../lib/domain/inventory/location.ts';
import type { VersionedRecord } from '../../../lib/domain/inventory/records.ts';
import type { Movement } from '../../../lib/domain/inventory/stock.ts';

/**
 * The general import-kind contract on the real pipeline (ImportJobProcessor) with in-memory
 * ports: a kind that groups rows (one record from many rows) and writes several records per
 * unit. The stores behind the ports have their own suites against DynamoDB Local.
 */

const NOW = '2026-11-22T10:00:00.000Z';

interface ShelfRow {
  code: string;
  slot: string;
}

/** Test kind: rows `code,slot`, grouped by code; a unit creates the location and one ledger entry per row. */
const shelvesKind: ImportKindDefinition<ShelfRow, Location> = {
  kind: 'test-shelves',
  title: 'Shelves',
  description: 'Test kind.',
  columns: [
    { name: 'code', required: true, type: 'string', description: 'Shelf code.' },
    { name: 'slot', required: true, type: 'string', description: 'Slot name.' },
  ],
  naturalKey: ['code'],
  duplicateStrategies: DUPLICATE_STRATEGIES,
  maxFileBytes: 1024 * 1024,
  maxRows: 1000,
  entity: 'location',
  parseRow: (raw, rowNumber) =>
    raw.slot
      ? { ok: true, value: { code: raw.code ?? '', slot: raw.slot } }
      : { ok: false, errors: [{ rowNumber, column: 'slot', value: null, code: 'required', message: 'slot is required.' }] },
  naturalKeyOf: (row) => row.code,
  references: () => [],
  groupKeyOf: (raw) => raw.code ?? '',
  decideUnit(unit, existing, _strategy, context) {
    if (existing) return { action: 'skipped', events: [] };
    const first = unit.rows[0]!;
    const location: Location = { id: context.newId(), code: first.code, name: unit.rows.map((row) => row.slot).join('+'), type: 'bin', parentCode: null, createdAt: context.now, updatedAt: context.now };
    const writes: RecordWrite[] = [
      { op: 'create', entity: 'location', record: location },
      ...unit.rowNumbers.map((rowNumber): RecordWrite => ({
        op: 'append-movement',
        movement: { id: `mov_${location.code}_${rowNumber}`, stockRecordId: 'stk_test', quantity: 1, reason: 'adjustment', reference: { kind: 'row', id: String(rowNumber) }, occurredAt: context.now },
      })),
    ];
    return { action: 'created', writes, events: [] };
  },
};

type FakeWrite = { kind: 'record'; op: 'create' | 'update'; record: Location } | { kind: 'movement'; movement: Movement } | { kind: 'checkpoint'; to: number; delta: Partial<JobCounts> } | { kind: 'row-error'; error: RowError } | { kind: 'finish' };

function harness(file: string, existing: Location[] = []) {
  let job: ImportJobState = {
    id: 'imp_1', organizationId: 'org_1', kind: 'test-shelves', duplicateStrategy: 'fail', status: 'queued', fileName: 'f.csv', fileSizeBytes: file.length, fileSha256: 'x',
    fileKey: 'k', submittedAt: NOW, startedAt: null, completedAt: null, failure: null, warnings: [], checkpoint: 0,
    counts: { totalRows: 0, processedRows: 0, created: 0, updated: 0, skipped: 0, failed: 0 },
  };
  const stored = new Map<string, VersionedRecord<Location>>(existing.map((location) => [location.code, { record: location, version: 1 }]));
  const movements: Movement[] = [];
  const rowErrors: RowError[] = [];
  const transactions: FakeWrite[][] = [];
  const ports: ProcessPorts<FakeWrite> = {
    // The registry holds kinds of any row type (AnyImportKind); this one's rows are ShelfRow.
    kinds: (name) => (name === shelvesKind.kind ? (shelvesKind as never) : undefined),
    jobs: {
      get: async () => job,
      start: async (current, totals) => (job = { ...current, status: 'processing', startedAt: NOW, warnings: totals.warnings, counts: { ...current.counts, totalRows: totals.totalRows, processedRows: totals.failedRows, failed: totals.failedRows } }),
      putRowErrors: async (_org, _job, errors) => void rowErrors.push(...errors),
      rowsWithErrors: async () => new Set(rowErrors.map((error) => error.rowNumber)),
      rowErrorWrite: (_org, _job, error) => ({ kind: 'row-error', error }),
      checkpointWrite: (_job, _from, to, delta) => ({ kind: 'checkpoint', to, delta }),
      finishWrite: () => ({ kind: 'finish' }),
    },
    files: { read: async () => Buffer.from(file) },
    records: {
      // Only locations are stored here; the port's generic record type cannot be narrowed to that.
      getByNaturalKeys: async (_org, _type, keys) => new Map([...keys].flatMap((key) => (stored.has(key) ? [[key, stored.get(key)!]] : []))) as never,
      createWrites: (_org, _type, record) => [{ kind: 'record', op: 'create', record: record as Location }],
      updateWrite: (_org, _type, record) => ({ kind: 'record', op: 'update', record: record as Location }),
      movementWrite: (_org, movement) => ({ kind: 'movement', movement }),
    },
    writer: {
      async run(_context, build) {
        const plan = await build();
        transactions.push(plan.writes);
        for (const write of plan.writes) {
          if (write.kind === 'record') stored.set(write.record.code, { record: write.record, version: 1 });
          if (write.kind === 'movement') movements.push(write.movement);
          if (write.kind === 'row-error') rowErrors.push(write.error);
          if (write.kind === 'checkpoint') {
            const counts = { ...job.counts };
            for (const [field, amount] of Object.entries(write.delta)) counts[field as keyof JobCounts] += amount ?? 0;
            job = { ...job, checkpoint: write.to, counts };
          }
          if (write.kind === 'finish') job = { ...job, status: job.counts.failed > 0 ? 'completed_with_errors' : 'succeeded' };
        }
        return { result: plan.result, events: [], attempts: 1 };
      },
    },
    continueLater: async () => undefined,
    planChunks: (units) => units.map((unit) => [unit]),
    clock: () => new Date(NOW),
  };
  return { ports, stored, movements, rowErrors, transactions, job: () => job };
}

describe('a kind that groups rows and writes several records per unit', () => {
  it('applies one unit per group key at its first row, counting every row; rows of a group need not be adjacent', async () => {
    // Prepare: A on rows 1 and 3, B on row 2
    const run = harness('code,slot\nA,left\nB,top\nA,right\n');

    // Act
    const outcome = await new ImportJobProcessor(run.ports).process('org_1', 'imp_1', () => 60_000);

    // Assess
    expect(outcome).toBe('finished');
    expect(run.job().counts).toEqual({ totalRows: 3, processedRows: 3, created: 3, updated: 0, skipped: 0, failed: 0 });
    expect(run.stored.get('A')?.record.name).toBe('left+right');
    expect(run.stored.get('B')?.record.name).toBe('top');
    expect(run.movements.map((movement) => movement.id)).toEqual(['mov_A_1', 'mov_A_3', 'mov_B_2']);
    // One transaction per unit here; the checkpoints are the units' first rows, in order.
    expect(run.transactions.flatMap((writes) => writes.filter((write) => write.kind === 'checkpoint'))).toEqual([
      { kind: 'checkpoint', to: 1, delta: { processedRows: 2, created: 2 } },
      { kind: 'checkpoint', to: 2, delta: { processedRows: 1, created: 1 } },
    ]);
  });

  it('applies none of a group when one of its rows is invalid: the others get group-has-errors', async () => {
    // Prepare: row 3 of group A lacks its slot
    const run = harness('code,slot\nA,left\nB,top\nA,\n');

    // Act
    await new ImportJobProcessor(run.ports).process('org_1', 'imp_1', () => 60_000);

    // Assess
    expect(run.job().counts).toEqual({ totalRows: 3, processedRows: 3, created: 1, updated: 0, skipped: 0, failed: 2 });
    expect(run.rowErrors.map((error) => [error.rowNumber, error.code])).toEqual([
      [1, 'group-has-errors'],
      [3, 'required'],
    ]);
    expect([...run.stored.keys()]).toEqual(['B']);
    expect(run.movements.map((movement) => movement.id)).toEqual(['mov_B_2']);
  });

  it('counts every row of a skipped group as skipped', async () => {
    // Prepare
    const existing: Location = { id: 'loc_1', code: 'A', name: 'old', type: 'bin', parentCode: null, createdAt: NOW, updatedAt: NOW };
    const run = harness('code,slot\nA,left\nA,right\n', [existing]);

    // Act
    await new ImportJobProcessor(run.ports).process('org_1', 'imp_1', () => 60_000);

    // Assess
    expect(run.job().counts).toEqual({ totalRows: 2, processedRows: 2, created: 0, updated: 0, skipped: 2, failed: 0 });
    expect(run.movements).toEqual([]);
  });
});
