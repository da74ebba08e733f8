import { describe, expect, it } from 'vitest';
import type { BuildProvenance } from '../../../lib/boms/domain/records.ts';
import {
  buildTraceTree,
  nodesOfBuild,
  type BuildPage,
  type BuildSource,
  type LotRef,
  type TraceDirection,
  type TraceNode,
} from '../../../lib/lots/domain/trace-tree.ts';

/**
 * The tree of a lot trace (docs/inventory.md "Tracing a lot") over builds held in memory: a
 * source that pages the builds of each lot as the lot-trace index does, counting its reads.
 */

let sequence = 0;
function build(
  consumed: Array<{ itemId: string; lot: string | null; quantity?: number; stockRecordId?: string }>,
  output: { itemId: string; lot: string | null; quantity?: number },
): BuildProvenance {
  sequence += 1;
  const id = `bld_${String(sequence).padStart(26, '0')}`;
  return {
    id,
    bomId: 'bom_1',
    revision: { id: 'rev_1', number: 1 },
    reference: `B-${sequence}`,
    quantity: output.quantity ?? 1,
    outputItemId: output.itemId,
    outputStockRecordId: `stk_out_${sequence}`,
    outputLot: output.lot,
    locationId: 'loc_1',
    consumed: consumed.map((line, index) => ({
      sourceStockRecordId: line.stockRecordId ?? `stk_${sequence}_${index}`,
      itemId: line.itemId,
      quantity: line.quantity ?? 1,
      lot: line.lot,
    })),
    builtAt: `2026-11-27T10:00:${String(sequence % 60).padStart(2, '0')}.${String(sequence).padStart(3, '0')}Z`,
  };
}

class MemorySource implements BuildSource {
  reads = 0;
  constructor(private readonly builds: BuildProvenance[]) {}

  async buildsFrom(lot: LotRef, direction: TraceDirection, after: string | undefined, limit: number): Promise<BuildPage> {
    this.reads += 1;
    const matching = this.builds.filter((candidate) =>
      direction === 'forward'
        ? candidate.consumed.some((line) => line.itemId === lot.itemId && line.lot === lot.lot)
        : candidate.outputItemId === lot.itemId && candidate.outputLot === lot.lot,
    );
    const start = after === undefined ? 0 : matching.findIndex((candidate) => candidate.id === after) + 1;
    const page = matching.slice(start, start + limit);
    return { builds: page.map((found) => ({ build: found, after: found.id })), more: start + limit < matching.length };
  }
}

const shape = (nodes: TraceNode[]): unknown[] => nodes.map((node) => ({ [`${node.itemId}/${node.lot}`]: shape(node.children) }));

/** Component lots C1, C2 → subassembly lot S1 (and S2 from C2 alone) → finished lots F1 (from S1) and F2 (from S1 and S2). */
function threeLevels() {
  const s1 = build(
    [
      { itemId: 'comp', lot: 'C1' },
      { itemId: 'comp', lot: 'C2' },
    ],
    { itemId: 'sub', lot: 'S1' },
  );
  const s2 = build([{ itemId: 'comp', lot: 'C2' }], { itemId: 'sub', lot: 'S2' });
  const f1 = build(
    [
      { itemId: 'sub', lot: 'S1' },
      { itemId: 'screw', lot: null },
    ],
    { itemId: 'fin', lot: 'F1' },
  );
  const f2 = build(
    [
      { itemId: 'sub', lot: 'S1' },
      { itemId: 'sub', lot: 'S2' },
    ],
    { itemId: 'fin', lot: 'F2' },
  );
  return [s1, s2, f1, f2];
}

describe('buildTraceTree', () => {
  it('forward: every finished lot that contains a component lot, through the subassembly', async () => {
    const tree = await buildTraceTree({ itemId: 'comp', lot: 'C2' }, { direction: 'forward', depth: 5, maxNodes: 1000 }, new MemorySource(threeLevels()));

    expect(shape(tree.nodes)).toEqual([{ 'sub/S1': [{ 'fin/F1': [] }, { 'fin/F2': [] }] }, { 'sub/S2': [{ 'fin/F2': [] }] }]);
    expect(tree).toMatchObject({ nodeCount: 5, truncated: false, continuation: null });
  });

  it('backward: the lots a finished lot was made of; an item without lots is a leaf', async () => {
    const tree = await buildTraceTree({ itemId: 'fin', lot: 'F1' }, { direction: 'backward', depth: 5, maxNodes: 1000 }, new MemorySource(threeLevels()));

    expect(shape(tree.nodes)).toEqual([{ 'sub/S1': [{ 'comp/C1': [] }, { 'comp/C2': [] }] }, { 'screw/null': [] }]);
  });

  it('backward: a lot drawn from several stock records of one build is one node with the quantities added', async () => {
    const made = build(
      [
        { itemId: 'comp', lot: 'C1', quantity: 2, stockRecordId: 'stk_a' },
        { itemId: 'comp', lot: 'C1', quantity: 0.5, stockRecordId: 'stk_b' },
      ],
      { itemId: 'fin', lot: 'F9' },
    );

    expect(nodesOfBuild(made, 'backward')).toEqual([expect.objectContaining({ itemId: 'comp', lot: 'C1', quantity: 2.5, buildId: made.id })]);
  });

  it('stops at `depth` levels without marking the last level truncated', async () => {
    const tree = await buildTraceTree({ itemId: 'comp', lot: 'C2' }, { direction: 'forward', depth: 1, maxNodes: 1000 }, new MemorySource(threeLevels()));

    expect(shape(tree.nodes)).toEqual([{ 'sub/S1': [] }, { 'sub/S2': [] }]);
    expect(tree.truncated).toBe(false);
  });

  it('reads each level once per lot, a few lots at a time', async () => {
    const source = new MemorySource(threeLevels());

    await buildTraceTree({ itemId: 'comp', lot: 'C2' }, { direction: 'forward', depth: 5, maxNodes: 1000 }, source);

    // C2; S1 and S2; F1, F2 and F2 (no builds consumed them).
    expect(source.reads).toBe(6);
  });

  it('cuts at the node cap: the builds that fit, the cut lots truncated, and continuations that list the rest', async () => {
    const builds = Array.from({ length: 7 }, (_, index) => build([{ itemId: 'comp', lot: 'C1' }], { itemId: 'sub', lot: `S${index}` }));
    builds.push(build([{ itemId: 'sub', lot: 'S0' }], { itemId: 'fin', lot: 'F0' }));
    const source = new MemorySource(builds);

    const first = await buildTraceTree({ itemId: 'comp', lot: 'C1' }, { direction: 'forward', depth: 3, maxNodes: 5 }, source);

    expect(first.nodeCount).toBe(5);
    expect(first.truncated).toBe(true);
    expect(first.nodes.map((node) => node.lot)).toEqual(['S0', 'S1', 'S2', 'S3', 'S4']);
    // The root's children after S4, and each listed lot whose builds were never read.
    expect(first.continuation).toEqual({ depth: 3, after: builds[4]?.id });
    expect(first.nodes.map((node) => [node.truncated, node.continuation])).toEqual(first.nodes.map(() => [true, { depth: 2, after: null }]));

    const rest = await buildTraceTree({ itemId: 'comp', lot: 'C1' }, { direction: 'forward', depth: 3, maxNodes: 5, after: builds[4]?.id }, source);
    expect(rest.nodes.map((node) => node.lot)).toEqual(['S5', 'S6']);
    const s0 = await buildTraceTree({ itemId: 'sub', lot: 'S0' }, { direction: 'forward', depth: 2, maxNodes: 5 }, source);
    expect(shape(s0.nodes)).toEqual([{ 'fin/F0': [] }]);
  });

  it('keeps a build whole when it fits a response: one that does not fit here is left whole to the continuation', async () => {
    const small = build([{ itemId: 'a', lot: 'A1' }], { itemId: 'fin', lot: 'F1' });
    const pair = build(
      [
        { itemId: 'b', lot: 'B1' },
        { itemId: 'c', lot: 'C1' },
      ],
      { itemId: 'fin', lot: 'F1' },
    );

    const tree = await buildTraceTree({ itemId: 'fin', lot: 'F1' }, { direction: 'backward', depth: 1, maxNodes: 2 }, new MemorySource([small, pair]));

    expect(tree.nodes.map((node) => node.lot)).toEqual(['A1']);
    expect(tree.continuation).toEqual({ depth: 1, after: small.id });
  });

  it('splits a build with more nodes than the cap: each response makes progress, every node comes once, the last ends', async () => {
    const lots = Array.from({ length: 7 }, (_, index) => ({ itemId: 'comp', lot: `C${index}` }));
    const before = build([{ itemId: 'sub', lot: 'S0' }], { itemId: 'fin', lot: 'F1' });
    const oversized = build(lots, { itemId: 'fin', lot: 'F1' });
    const after = build([{ itemId: 'sub', lot: 'S1' }], { itemId: 'fin', lot: 'F1' });
    const source = new MemorySource([before, oversized, after]);

    const pages: Array<Awaited<ReturnType<typeof buildTraceTree>>> = [];
    let options: { after?: string; skip?: number } = {};
    for (let request = 0; request < 10; request += 1) {
      const page = await buildTraceTree({ itemId: 'fin', lot: 'F1' }, { direction: 'backward', depth: 1, maxNodes: 3, ...options }, source);
      pages.push(page);
      if (!page.continuation) break;
      options = {
        ...(page.continuation.after === null ? {} : { after: page.continuation.after }),
        ...(page.continuation.skip ? { skip: page.continuation.skip } : {}),
      };
    }

    expect(pages.map((page) => page.nodes.map((node) => node.lot))).toEqual([
      ['S0', 'C0', 'C1'],
      ['C2', 'C3', 'C4'],
      ['C5', 'C6', 'S1'],
    ]);
    expect(pages.map((page) => page.continuation)).toEqual([{ depth: 1, after: before.id, skip: 2 }, { depth: 1, after: before.id, skip: 5 }, null]);
  });

  it('the first build of a lot split: its continuation still names a position, never the request itself', async () => {
    const oversized = build(
      [
        { itemId: 'a', lot: 'A1' },
        { itemId: 'b', lot: 'B1' },
        { itemId: 'c', lot: 'C1' },
      ],
      { itemId: 'fin', lot: 'F1' },
    );
    const source = new MemorySource([oversized]);

    const first = await buildTraceTree({ itemId: 'fin', lot: 'F1' }, { direction: 'backward', depth: 2, maxNodes: 2 }, source);
    const rest = await buildTraceTree({ itemId: 'fin', lot: 'F1' }, { direction: 'backward', depth: 2, maxNodes: 2, skip: first.continuation?.skip }, source);

    expect(first).toMatchObject({ nodeCount: 2, truncated: true, continuation: { depth: 2, after: null, skip: 2 } });
    expect(first.nodes.map((node) => node.lot)).toEqual(['A1', 'B1']);
    expect(rest).toMatchObject({ nodeCount: 1, truncated: false, continuation: null });
    expect(rest.nodes.map((node) => node.lot)).toEqual(['C1']);
  });

  it('splits an oversized build of a lower level under the node it belongs to', async () => {
    const parts = build(
      [
        { itemId: 'a', lot: 'A1' },
        { itemId: 'b', lot: 'B1' },
        { itemId: 'c', lot: 'C1' },
      ],
      { itemId: 'sub', lot: 'S1' },
    );
    const top = build([{ itemId: 'sub', lot: 'S1' }], { itemId: 'fin', lot: 'F1' });

    const tree = await buildTraceTree({ itemId: 'fin', lot: 'F1' }, { direction: 'backward', depth: 2, maxNodes: 2 }, new MemorySource([parts, top]));

    expect(shape(tree.nodes)).toEqual([{ 'sub/S1': [{ 'a/A1': [] }] }]);
    expect(tree.nodes[0]).toMatchObject({ truncated: true, continuation: { depth: 1, after: null, skip: 1 } });
    expect(tree.continuation).toBeNull();
  });

  it('guards against a cycle, which builds cannot make: a lot is never expanded below itself', async () => {
    const loop = [build([{ itemId: 'x', lot: 'X1' }], { itemId: 'y', lot: 'Y1' }), build([{ itemId: 'y', lot: 'Y1' }], { itemId: 'x', lot: 'X1' })];

    const tree = await buildTraceTree({ itemId: 'x', lot: 'X1' }, { direction: 'forward', depth: 10, maxNodes: 1000 }, new MemorySource(loop));

    expect(shape(tree.nodes)).toEqual([{ 'y/Y1': [{ 'x/X1': [] }] }]);
  });

  it('an empty trace: no builds, nothing truncated', async () => {
    expect(await buildTraceTree({ itemId: 'x', lot: 'none' }, { direction: 'backward', depth: 5, maxNodes: 1000 }, new MemorySource([]))).toEqual({
      nodes: [],
      nodeCount: 0,
      truncated: false,
      continuation: null,
    });
  });
});
