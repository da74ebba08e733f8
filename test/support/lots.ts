import { expect } from 'vitest';
import type { BuildProvenance } from '../../lib/boms/domain/records.ts';
import { newId } from '../../lib/platform/core/ids.ts';
import { bomsStore } from './boms.ts';
import { transactionWriter } from './events.ts';
import { csvOf } from './imports.ts';

/**
 * Lot-trace helpers (docs/inventory.md "Tracing a lot"): the import files of a three-level build
 * chain, provenance written in bulk, and an honest wait for the lot-trace index, which is
 * eventually consistent.
 */

/**
 * Component lots C1 and C2 → subassembly lots S1 (from C1) and S2 (from C2) → finished lots F1
 * (from S1) and F2 (from S1 and S2); SCREW, not tracked by lot, goes into every finished lot.
 * Each entry is one import, in order: `kind` and `file`.
 */
export const LOT_CHAIN_IMPORTS = [
  {
    kind: 'items',
    file: csvOf(
      ['sku', 'name', 'trackingMode'],
      [
        ['COMP', 'Component', 'lot'],
        ['SUB', 'Subassembly', 'lot'],
        ['FIN', 'Finished', 'lot'],
        ['SCREW', 'Screw', 'none'],
      ],
    ),
  },
  { kind: 'locations', file: csvOf(['code', 'name', 'type'], [['A1', 'Bin A1', 'bin']]) },
  {
    kind: 'po-receipts',
    file: csvOf(
      ['poNumber', 'sku', 'locationCode', 'quantity', 'lot'],
      [
        ['PO-1', 'COMP', 'A1', '10', 'C1'],
        ['PO-1', 'COMP', 'A1', '10', 'C2'],
        ['PO-1', 'SCREW', 'A1', '100', ''],
      ],
    ),
  },
  {
    kind: 'boms',
    file: csvOf(
      ['bomCode', 'targetSku', 'componentSku', 'quantity'],
      [
        ['SUB-BOM', 'SUB', 'COMP', '1'],
        ['FIN-BOM', 'FIN', 'SUB', '1'],
        ['FIN-BOM', 'FIN', 'SCREW', '2'],
      ],
    ),
  },
  {
    kind: 'builds',
    file: csvOf(
      ['buildReference', 'bomCode', 'quantity', 'locationCode', 'outputLot', 'componentSku', 'sourceLot'],
      [
        ['SB-1', 'SUB-BOM', '3', 'A1', 'S1', 'COMP', 'C1'],
        ['SB-2', 'SUB-BOM', '4', 'A1', 'S2', 'COMP', 'C2'],
        ['FB-1', 'FIN-BOM', '1', 'A1', 'F1', 'SUB', 'S1'],
        // S1 holds 2 after FB-1, so FB-2 draws 2 from S1 and 1 from S2.
        ['FB-2', 'FIN-BOM', '3', 'A1', 'F2', 'SUB', 'S1'],
        ['FB-2', 'FIN-BOM', '3', 'A1', 'F2', 'SUB', 'S2'],
      ],
    ),
  },
] as const;

/**
 * One build of FIN lot F1 that drew `lots` one-unit lots of COMP (a BOM line of `lots` units,
 * drawn oldest first): a backward trace of F1 has `lots` nodes from a single build. The lots are
 * `L0000`…; a receipt holds at most 1,000 lines, so they come as receipts of 1,000.
 */
export function oneBuildOfManyLotsImports(lots: number) {
  const lotNames = Array.from({ length: lots }, (_, index) => `L${String(index).padStart(4, '0')}`);
  return {
    lotNames,
    imports: [
      {
        kind: 'items',
        file: csvOf(
          ['sku', 'name', 'trackingMode'],
          [
            ['COMP', 'Component', 'lot'],
            ['FIN', 'Finished', 'lot'],
          ],
        ),
      },
      { kind: 'locations', file: csvOf(['code', 'name', 'type'], [['A1', 'Bin A1', 'bin']]) },
      {
        kind: 'po-receipts',
        file: csvOf(
          ['poNumber', 'sku', 'locationCode', 'quantity', 'lot'],
          lotNames.map((lot, index) => [`PO-${Math.floor(index / 1000)}`, 'COMP', 'A1', '1', lot]),
        ),
      },
      { kind: 'boms', file: csvOf(['bomCode', 'targetSku', 'componentSku', 'quantity'], [['FIN-BOM', 'FIN', 'COMP', String(lots)]]) },
      { kind: 'builds', file: csvOf(['buildReference', 'bomCode', 'quantity', 'locationCode', 'outputLot'], [['FB-WIDE', 'FIN-BOM', '1', 'A1', 'F1']]) },
    ],
  };
}

/** A trace reduced to its shape: `sku/lot` with its children, in order. */
export type TraceShape = Array<Record<string, TraceShape>>;
export function shapeOf(
  nodes: ReadonlyArray<{ sku: string | null; lot: string | null; builtAt?: string; buildId?: string; children: ReadonlyArray<unknown> }>,
): TraceShape {
  // Siblings come in their builds' time order, a build's own nodes in its order; builds of the
  // same instant (one import chunk) come in no particular order, so those are put in the order
  // of their first node's sku/lot.
  const keyOf = (node: (typeof nodes)[number]) => `${node.sku}/${node.lot}`;
  const firstKeyOfBuild = new Map<string | undefined, string>();
  for (const node of nodes) if (!firstKeyOfBuild.has(node.buildId)) firstKeyOfBuild.set(node.buildId, keyOf(node));
  const timeRank = new Map<string | undefined, number>();
  for (const node of nodes) if (!timeRank.has(node.builtAt)) timeRank.set(node.builtAt, timeRank.size);
  const rankOf = (node: (typeof nodes)[number], index: number) => [timeRank.get(node.builtAt) ?? 0, firstKeyOfBuild.get(node.buildId) ?? '', index] as const;
  const ordered = nodes.map((node, index) => ({ node, rank: rankOf(node, index) }));
  ordered.sort((a, b) => a.rank[0] - b.rank[0] || a.rank[1].localeCompare(b.rank[1]) || a.rank[2] - b.rank[2]);
  return ordered.map(({ node }) => ({ [keyOf(node)]: shapeOf(node.children as typeof nodes) }));
}

/**
 * Reads until `read` gives a result `done` accepts: the lot-trace index is a GSI, so a build is
 * traceable only moments after it commits. Fails with the last result after `timeoutMs`.
 */
export async function eventuallyTraced<T>(read: () => Promise<T>, done: (result: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const result = await read();
    if (done(result)) return result;
    if (Date.now() > deadline) {
      expect.fail(`The lot-trace index did not show the builds within ${timeoutMs} ms; last read: ${JSON.stringify(result).slice(0, 2000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * `count` builds that each consumed `consumed` (one stock record of it) and produced their own
 * lot `<prefix><n>` of `output`, written as the stock flows write provenance, many builds a
 * transaction (each build is its pointer and one provenance entry).
 */
export async function recordBuildsOfOneLot(
  organizationId: string,
  options: { count: number; bomId: string; consumed: { itemId: string; lot: string; stockRecordId: string }; output: { itemId: string; lotPrefix: string } },
): Promise<BuildProvenance[]> {
  const store = bomsStore();
  const builds = Array.from({ length: options.count }, (_, index): BuildProvenance => ({
    id: newId('bld'),
    bomId: options.bomId,
    revision: { id: 'rev_bulk', number: 1 },
    reference: `BULK-${index}`,
    quantity: 1,
    outputItemId: options.output.itemId,
    outputStockRecordId: `stk_bulk_${index}`,
    outputLot: `${options.output.lotPrefix}${String(index).padStart(5, '0')}`,
    locationId: 'loc_bulk',
    consumed: [{ sourceStockRecordId: options.consumed.stockRecordId, itemId: options.consumed.itemId, quantity: 1, lot: options.consumed.lot }],
    builtAt: new Date(Date.UTC(2026, 0, 1, 0, 0, 0, index)).toISOString(),
  }));
  // A transaction holds 100 actions: 2 per build here, some to spare for the writer's own.
  const perTransaction = 45;
  for (let start = 0; start < builds.length; start += perTransaction) {
    const batch = builds.slice(start, start + perTransaction);
    await transactionWriter().run({ organizationId, actor: { type: 'system', id: 'lot-trace-tests' }, traceId: null }, async () => ({
      writes: batch.flatMap((build) => store.buildWrites(organizationId, build)),
      events: [],
      result: undefined,
    }));
  }
  return builds;
}
