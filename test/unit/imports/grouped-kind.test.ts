import { describe, expect, it } from 'vitest';
import type { ImportKindDefinition, RecordWrite } from '../../../lib/imports/domain/kind-definition.ts';
import { ImportJobProcessor } from '../../../lib/imports/domain/pipeline/process-job.ts';
import { DUPLICATE_STRATEGIES } from '../../../lib/imports/domain/types.ts';
import type { Location } from '../../../lib/inventory/domain/location.ts';
import { HARNESS_NOW, importHarness } from '../../support/import-harness.ts';

/**
 * The general import-kind contract on the real pipeline (ImportJobProcessor) with in-memory
 * ports: a kind that groups rows (one record from many rows) and writes several records per
 * unit. The stores behind the ports have their own suites against DynamoDB Local.
 */

const NOW = HARNESS_NOW;

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
    const location: Location = {
      id: context.newId(),
      code: first.code,
      name: unit.rows.map((row) => row.slot).join('+'),
      type: 'bin',
      parentCode: null,
      createdAt: context.now,
      updatedAt: context.now,
    };
    const writes: RecordWrite[] = [
      { op: 'create', entity: 'location', record: location },
      ...unit.rowNumbers.map((rowNumber): RecordWrite => ({
        op: 'record-movement',
        movement: {
          id: `mov_${location.code}_${rowNumber}`,
          type: 'adjustment',
          itemId: 'itm_test',
          sku: 'TEST',
          fromLocationId: null,
          toLocationId: location.id,
          quantity: 1,
          lot: null,
          reference: String(rowNumber),
          occurredAt: context.now,
        },
        legs: [{ stockRecordId: 'stk_test', quantity: 1 }],
      })),
    ];
    return { action: 'created', writes, events: [] };
  },
};

function harness(file: string, existing: Location[] = []) {
  // One unit per transaction: 2 rows of group A (a record and 2 movements) take 3 actions.
  return importHarness<Location>({ kind: shelvesKind as never, file, keyOf: (location) => location.code, existing, chunkActions: 3 });
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
    expect(run.checkpoints()).toEqual([
      { kind: 'checkpoint', from: 0, to: 1, progress: { counts: { processedRows: 2, created: 2 }, storedErrors: 0, unstoredErrors: 0 } },
      { kind: 'checkpoint', from: 1, to: 2, progress: { counts: { processedRows: 1, created: 1 }, storedErrors: 0, unstoredErrors: 0 } },
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
