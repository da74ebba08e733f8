import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DUPLICATE_STRATEGIES, type DuplicateStrategy } from '../../lib/imports/domain/types.ts';
import { uniqueOrganization } from '../support/api.ts';
import { eventsSnapshot, recordWrites, runJob, seedCatalog, writesBeyondTheJob } from '../support/dry-runs.ts';
import { csvOf } from '../support/imports.ts';

/**
 * Dry runs (docs/imports.md "Dry runs"), on the local stack, over generated files of every import
 * kind: on the same data, a dry run gives exactly the counts and row errors of the real run that
 * follows it, and leaves the organization's stored data and events feed as it found them. Rows
 * are drawn from small pools of keys, so later rows depend on earlier ones (stock taken by an
 * earlier row, a parent created by an earlier row, a reference used twice), and the jobs run in
 * transactions of 8 actions through invocations that end after a few looks at the clock (and,
 * sometimes, a crash before a commit): a few dozen rows span several chunks and resumes.
 *
 * Runs per kind: DRY_RUN_PROPERTY_RUNS (default 2, to keep CI small).
 */

const RUNS = Number(process.env.DRY_RUN_PROPERTY_RUNS ?? 2);

/** A stock place: mostly one that holds or can hold stock, sometimes one a row is refused for. */
const PLACES: Array<[string, string, string]> = [
  ['P1', 'W1', ''],
  ['P1', 'W2', ''],
  ['P2', 'W1', ''],
  ['LOT', 'W1', 'L1'],
  ['LOT', 'W2', 'L2'],
];
const BAD_PLACES: Array<[string, string, string]> = [
  ['GHOST', 'W1', ''],
  ['P1', 'W9', ''],
  ['LOT', 'W1', ''],
  ['P2', 'W1', 'L1'],
];
const place = fc.oneof({ arbitrary: fc.constantFrom(...PLACES), weight: 6 }, { arbitrary: fc.constantFrom(...BAD_PLACES), weight: 1 });
const pick = (values: readonly string[]) => fc.constantFrom(...values);
/** Mostly the row's own key (`prefix` + row), sometimes an earlier row's (a duplicate in the file). */
const ownKey = (prefix: string, index: number, reuse: number | null) => `${prefix}${reuse === null || reuse >= index ? index : reuse}`;
const reuse = fc.oneof({ arbitrary: fc.constant(null), weight: 8 }, { arbitrary: fc.integer({ min: 0, max: 40 }), weight: 1 });
/** Rarely `values`, mostly null. */
const rarely = (values: readonly string[]) => fc.oneof({ arbitrary: fc.constant(null), weight: 6 }, { arbitrary: pick(values), weight: 1 });

/**
 * Per kind: the header and a generator of one row from its position. Rows name earlier rows' keys
 * (parents, stock they moved), so a row's verdict depends on what came before it.
 */
const KINDS: Record<string, { header: string[]; row: fc.Arbitrary<(index: number) => string[]>; chunkActions?: number }> = {
  items: {
    header: ['sku', 'name', 'reorderPoint', 'trackingMode'],
    row: fc
      .tuple(reuse, rarely(['P1', 'LOT', 'P2']), pick(['Alpha', 'Beta']), pick(['', '2', '5', '-1']), pick(['', 'none', 'none', 'lot']))
      .map(([again, existing, name, reorderPoint, trackingMode]) => (index) => [existing ?? ownKey('N', index, again), name, reorderPoint, trackingMode]),
  },
  locations: {
    header: ['code', 'name', 'type', 'parentCode'],
    row: fc
      .tuple(
        reuse,
        pick(['bin', 'zone', '']),
        fc.oneof({ arbitrary: fc.integer({ min: -4, max: -1 }), weight: 4 }, { arbitrary: fc.integer({ min: 0, max: 2 }), weight: 1 }),
        pick(['', 'W1', 'W9', 'nearby', 'nearby']),
      )
      .map(([again, type, offset, parent]) => (index) => [
        ownKey('L', index, again),
        'Here',
        type,
        // Mostly an earlier row's code (maybe created in an earlier chunk), sometimes its own or a later one's.
        parent === 'nearby' ? `L${Math.max(1, index + offset)}` : parent,
      ]),
  },
  boms: {
    header: ['bomCode', 'targetSku', 'componentSku', 'quantity'],
    row: fc
      .tuple(fc.integer({ min: 1, max: 12 }), rarely(['GHOST', 'P2']), pick(['1', '1', '2.5', '0']))
      .map(([bom, odd, quantity]) => (index) => [bom === 12 ? 'KIT' : `B${bom}`, 'P2', odd ?? (index % 2 === 0 ? 'P1' : 'LOT'), quantity]),
  },
  'stock-adjustments': {
    header: ['reference', 'sku', 'locationCode', 'quantityDelta', 'lot'],
    row: fc
      .tuple(reuse, place, pick(['-3', '-2', '-1', '1', '2', '3']))
      .map(([again, [sku, location, lot], delta]) => (index) => [ownKey('R', index, again), sku, location, delta, lot]),
  },
  'stock-transfers': {
    header: ['reference', 'sku', 'fromLocationCode', 'toLocationCode', 'quantity', 'lot'],
    // Stock goes W1 → W2 and back: a transfer out of W2 needs what earlier rows brought there.
    row: fc
      .tuple(reuse, place, fc.boolean(), rarely(['W9', 'W1']), pick(['1', '2']))
      .map(([again, [sku, , lot], outward, odd, quantity]) => (index) => [
        ownKey('T', index, again),
        sku,
        outward ? 'W1' : 'W2',
        odd ?? (outward ? 'W2' : 'W1'),
        quantity,
        lot,
      ]),
  },
  'stock-counts': {
    header: ['countReference', 'locationCode', 'sku', 'countedQuantity', 'lot'],
    row: fc
      .tuple(fc.integer({ min: 1, max: 5 }), place, pick(['0', '1', '4']))
      .map(([count, [sku, location, lot], counted]) => () => [`C${count}`, location, sku, counted, lot]),
  },
  'po-receipts': {
    header: ['poNumber', 'sku', 'locationCode', 'quantity', 'lot'],
    row: fc
      .tuple(fc.integer({ min: 1, max: 8 }), place, pick(['1', '3']))
      .map(([po, [sku, location, lot], quantity]) => () => [`PO${po}`, sku, location, quantity, lot]),
  },
  builds: {
    // A build takes 17 storage actions: one build per chunk.
    chunkActions: 24,
    header: ['buildReference', 'bomCode', 'quantity', 'locationCode'],
    row: fc
      .tuple(reuse, pick(['KIT', 'KIT', 'KIT', 'NOPE']), pick(['1', '2']), pick(['W1', 'W1', 'W2']))
      .map(([again, bom, quantity, location]) => (index) => [ownKey('D', index, again), bom, quantity, location]),
  },
};

const scenario = (kind: string) =>
  fc.record({
    rows: fc.array(KINDS[kind]?.row ?? fc.constant(() => []), { minLength: 12, maxLength: 36 }).map((makers) => makers.map((make, index) => make(index + 1))),
    duplicateStrategy: fc.constantFrom<DuplicateStrategy>(...DUPLICATE_STRATEGIES),
    callsPerInvocation: fc.integer({ min: 6, max: 12 }),
    crashBeforeTransaction: fc.option(fc.integer({ min: 2, max: 4 }), { nil: undefined }),
  });

describe('a dry run', () => {
  for (const kind of Object.keys(KINDS)) {
    it(`of a ${kind} file gives the real run's counts and row errors, and writes nothing`, async () => {
      await fc.assert(
        fc.asyncProperty(scenario(kind), async ({ rows, duplicateStrategy, callsPerInvocation, crashBeforeTransaction }) => {
          // Prepare: a fresh organization with a catalog and stock; the file
          const organizationId = uniqueOrganization();
          await seedCatalog(organizationId);
          const file = csvOf(KINDS[kind]?.header ?? [], rows);
          const before = await eventsSnapshot(organizationId);

          // Act: the dry run (resumed, maybe after a crash), then the real run on the same data
          const recorder = recordWrites();
          const dry = await runJob(organizationId, kind, file, {
            duplicateStrategy,
            dryRun: true,
            callsPerInvocation,
            crashBeforeTransaction,
            chunkActions: KINDS[kind]?.chunkActions,
          }).finally(recorder.stop);
          const afterDryRun = await eventsSnapshot(organizationId);
          const real = await runJob(organizationId, kind, file, {
            duplicateStrategy,
            dryRun: false,
            callsPerInvocation: 1000,
            chunkActions: KINDS[kind]?.chunkActions,
          });

          // Assess: same verdicts, nothing written by the dry run; the job spanned several chunks
          expect(dry.verdicts).toEqual(real.verdicts);
          expect(writesBeyondTheJob(recorder.writes)).toEqual([]);
          expect(afterDryRun).toEqual(before);
          expect(dry.verdicts.counts.processedRows).toBe(rows.length);
        }),
        // No shrinking: each run takes seconds on the local stack; the counterexample is reported as found.
        { numRuns: RUNS, endOnFailure: true },
      );
    }, 300_000);
  }
});
