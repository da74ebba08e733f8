import { beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../lib/platform/core/errors.ts';
import { LOT_TRACE_MAX_NODES, LotTraces } from '../../lib/lots/domain/trace-lot.ts';
import { CursorCodec } from '../../lib/platform/pagination/cursor.ts';
import { LotTraceStore } from '../../lib/lots/store/lot-trace-store.ts';
import { uniqueOrganization } from '../support/api.ts';
import { tableName } from '../support/events.ts';
import { itemsOf, locationsOf, runImportInProcess } from '../support/imports.ts';
import { eventuallyTraced, LOT_CHAIN_IMPORTS, oneBuildOfManyLotsImports, recordBuildsOfOneLot, shapeOf } from '../support/lots.ts';
import { stockAt } from '../support/stock.ts';

/**
 * Lot traces on the local stack (docs/inventory.md "Tracing a lot"): the real builds import writes
 * the provenance, the real store reads it through the lot-trace index. The index is eventually
 * consistent, so every first read of new builds waits for them (eventuallyTraced).
 */

const traces = new LotTraces(new LotTraceStore(tableName('inventory')), new CursorCodec('lot-trace-test-cursor-secret-0123456789'));
const organizationId = uniqueOrganization();
const otherOrganizationId = uniqueOrganization();

const trace = (query: { sku: string; lot: string; direction: 'forward' | 'backward'; depth?: number; cursor?: string }, organization = organizationId) =>
  traces.trace(organization, { depth: 5, ...query });

async function problemOf(promise: Promise<unknown>): Promise<{ status: number; code: string }> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof ApiError)) throw new Error(`expected a problem, got ${String(error)}`);
  return { status: error.status, code: error.code };
}

beforeAll(async () => {
  for (const { kind, file } of LOT_CHAIN_IMPORTS) {
    const job = await runImportInProcess(organizationId, kind, file);
    expect(job.counts.failed, `${kind}: ${JSON.stringify(job.counts)}`).toBe(0);
  }
  // Another organization with the same skus and lots, and builds of its own.
  for (const { kind, file } of LOT_CHAIN_IMPORTS.slice(0, 4)) await runImportInProcess(otherOrganizationId, kind, file);
  await eventuallyTraced(
    () => trace({ sku: 'FIN', lot: 'F2', direction: 'backward' }),
    (found) => found.nodeCount === 5,
  );
  // Each index entry arrives on its own: the forward chains are waited for too.
  await eventuallyTraced(
    () => trace({ sku: 'COMP', lot: 'C1', direction: 'forward' }),
    (found) => found.nodeCount === 3,
  );
  await eventuallyTraced(
    () => trace({ sku: 'COMP', lot: 'C2', direction: 'forward' }),
    (found) => found.nodeCount === 2,
  );
}, 120_000);

describe('a three-level build chain', () => {
  it('forward: which finished lots contain component lot C1, in one request', async () => {
    const forward = await trace({ sku: 'COMP', lot: 'C1', direction: 'forward' });

    // Builds come in build time order, then by build id: F1's and F2's builds were made by one
    // import in the same millisecond, so their order is their random ids'; compare them by lot.
    const byLot = <T extends { lot: string | null }>(nodes: readonly T[]) => [...nodes].sort((a, b) => String(a.lot).localeCompare(String(b.lot)));
    const [s1] = forward.nodes;
    expect(shapeOf(forward.nodes.map((node) => ({ ...node, children: byLot(node.children) })))).toEqual([{ 'SUB/S1': [{ 'FIN/F1': [] }, { 'FIN/F2': [] }] }]);
    expect(forward).toMatchObject({ sku: 'COMP', lot: 'C1', direction: 'forward', depth: 5, nodeCount: 3, truncated: false, continuation: null });
    expect(s1).toMatchObject({ sku: 'SUB', lot: 'S1', quantity: 3, truncated: false, continuation: null });
    expect(byLot(s1?.children ?? []).map((node) => node.quantity)).toEqual([1, 3]);
  });

  it('forward from C2 reaches F2 through S2 only', async () => {
    expect(shapeOf((await trace({ sku: 'COMP', lot: 'C2', direction: 'forward' })).nodes)).toEqual([{ 'SUB/S2': [{ 'FIN/F2': [] }] }]);
  });

  it('backward: what finished lot F2 was made of, down to the component lots; the screw (no lots) is a leaf', async () => {
    const backward = await trace({ sku: 'FIN', lot: 'F2', direction: 'backward' });

    expect(shapeOf(backward.nodes)).toEqual([{ 'SUB/S1': [{ 'COMP/C1': [] }] }, { 'SUB/S2': [{ 'COMP/C2': [] }] }, { 'SCREW/null': [] }]);
    expect(backward.nodes.map((node) => [node.sku, node.quantity])).toEqual([
      ['SUB', 2],
      ['SUB', 1],
      ['SCREW', 6],
    ]);
    // Each node names the build that consumed it: FB-2 for the three, SB-1 and SB-2 below.
    const [s1, s2] = backward.nodes;
    expect(new Set(backward.nodes.map((node) => node.buildId)).size).toBe(1);
    expect(s1?.children[0]?.buildId).not.toBe(s2?.children[0]?.buildId);
  });

  it('stops at depth: depth 1 lists the first level only', async () => {
    const shallow = await trace({ sku: 'COMP', lot: 'C1', direction: 'forward', depth: 1 });

    expect(shapeOf(shallow.nodes)).toEqual([{ 'SUB/S1': [] }]);
    expect(shallow.truncated).toBe(false);
  });

  it('a lot received but never built with is an empty trace, not a 404', async () => {
    await runImportInProcess(organizationId, 'po-receipts', 'poNumber,sku,locationCode,quantity,lot\nPO-2,COMP,A1,5,C9\n');

    expect(await trace({ sku: 'COMP', lot: 'C9', direction: 'forward' })).toMatchObject({ nodes: [], nodeCount: 0, truncated: false });
  });
});

describe('refusals', () => {
  it.each([
    ['an unknown sku', { sku: 'NOPE', lot: 'C1' }, 404, 'customer-api.inventory.not-found'],
    ['a lot the item never had', { sku: 'COMP', lot: 'C404' }, 404, 'customer-api.inventory.not-found'],
    ['an item not tracked by lot', { sku: 'SCREW', lot: 'C1' }, 400, 'customer-api.lots.not-lot-tracked'],
  ])('%s: %s', async (_case, query, status, code) => {
    expect(await problemOf(trace({ ...query, direction: 'forward' }))).toEqual({ status, code });
  });

  it('a cursor issued for another lot is refused', async () => {
    const cursor = new CursorCodec('lot-trace-test-cursor-secret-0123456789').encode('USED#', {
      organizationId,
      endpoint: 'GET /v1/lots/trace',
      filters: { itemId: 'itm_other', lot: 'C1', direction: 'forward' },
    });

    expect(await problemOf(trace({ sku: 'COMP', lot: 'C1', direction: 'forward', cursor }))).toEqual({
      status: 400,
      code: 'customer-api.pagination.invalid-cursor',
    });
  });
});

describe('tenancy', () => {
  it("another organization's sku is the same 404, and its own trace shows none of this organization's builds", async () => {
    const outsider = uniqueOrganization();
    expect(await problemOf(trace({ sku: 'COMP', lot: 'C1', direction: 'forward' }, outsider))).toEqual({
      status: 404,
      code: 'customer-api.inventory.not-found',
    });

    // Same skus and lots, received, never built with there.
    expect(await trace({ sku: 'COMP', lot: 'C1', direction: 'forward' }, otherOrganizationId)).toMatchObject({ nodes: [], nodeCount: 0 });
    expect(await problemOf(trace({ sku: 'FIN', lot: 'F2', direction: 'backward' }, otherOrganizationId))).toEqual({
      status: 404,
      code: 'customer-api.inventory.not-found',
    });
  });
});

describe('the node cap', () => {
  it(`cuts at ${LOT_TRACE_MAX_NODES} nodes and its continuation lists the rest`, async () => {
    // A lot of its own, consumed by 1,010 builds each making a lot of SUB.
    const wide = uniqueOrganization();
    for (const { kind, file } of LOT_CHAIN_IMPORTS.slice(0, 3)) await runImportInProcess(wide, kind, file);
    const items = await itemsOf(wide, ['COMP', 'SUB']);
    const [a1] = [...(await locationsOf(wide, ['A1'])).values()];
    const comp = items.get('COMP')?.record.id ?? '';
    const source = await stockAt(wide, comp, a1?.record.id ?? '', 'C1');
    const count = LOT_TRACE_MAX_NODES + 10;
    await recordBuildsOfOneLot(wide, {
      count,
      bomId: 'bom_bulk',
      consumed: { itemId: comp, lot: 'C1', stockRecordId: source.id },
      output: { itemId: items.get('SUB')?.record.id ?? '', lotPrefix: 'W' },
    });

    const read = async () => {
      const first = await trace({ sku: 'COMP', lot: 'C1', direction: 'forward' }, wide);
      const cursor = first.continuation?.cursor;
      const rest = cursor ? await trace({ sku: 'COMP', lot: 'C1', direction: 'forward', depth: first.continuation?.depth ?? 0, cursor }, wide) : undefined;
      return { first, rest };
    };
    const { first, rest } = await eventuallyTraced(read, ({ first: found, rest: more }) => found.nodeCount + (more?.nodeCount ?? 0) === count, 30_000);

    expect(first.nodeCount).toBe(LOT_TRACE_MAX_NODES);
    expect(first.truncated).toBe(true);
    expect(first.nodes).toHaveLength(LOT_TRACE_MAX_NODES);
    // The first level filled the response: no lot below it was read, each says how to read it.
    expect(first.nodes.every((node) => node.truncated && node.continuation?.depth === 4 && node.continuation.cursor === null)).toBe(true);
    expect(first.continuation).toEqual({ depth: 5, cursor: expect.any(String) });
    expect(rest).toMatchObject({ truncated: false, continuation: null, nodeCount: 10 });
    const lots = [...first.nodes, ...(rest?.nodes ?? [])].map((node) => node.lot);
    expect(new Set(lots).size).toBe(count);
    expect(lots).toEqual([...lots].sort());
  }, 120_000);

  it(`a build that drew more than ${LOT_TRACE_MAX_NODES} lots: its nodes split across responses, each making progress, every node once`, async () => {
    const many = uniqueOrganization();
    const { lotNames, imports } = oneBuildOfManyLotsImports(LOT_TRACE_MAX_NODES + 1);
    for (const { kind, file } of imports) {
      const job = await runImportInProcess(many, kind, file);
      expect(job.counts.failed, `${kind}: ${JSON.stringify(job.counts)}`).toBe(0);
    }

    // Follows the traced lot's own continuations (at most 5 responses), refusing one that repeats.
    const walk = async () => {
      const pages = [];
      const followed = new Set<string>();
      let continuation: { depth: number; cursor: string | null } = { depth: 5, cursor: null };
      for (let response = 0; response < 5; response += 1) {
        followed.add(JSON.stringify(continuation));
        const page = await trace(
          { sku: 'FIN', lot: 'F1', direction: 'backward', depth: continuation.depth, ...(continuation.cursor === null ? {} : { cursor: continuation.cursor }) },
          many,
        );
        pages.push(page);
        if (!page.continuation) break;
        expect(
          followed.has(JSON.stringify(page.continuation)),
          `response ${response} continues with a continuation already followed: ${JSON.stringify(page.continuation)}`,
        ).toBe(false);
        continuation = page.continuation;
      }
      return pages;
    };
    const pages = await eventuallyTraced(walk, (found) => found.some((page) => page.nodeCount > 0), 30_000);

    expect(pages.map((page) => page.nodeCount)).toEqual([LOT_TRACE_MAX_NODES, 1]);
    expect(pages.at(-1)).toMatchObject({ truncated: false, continuation: null });
    const nodes = pages.flatMap((page) => page.nodes);
    expect(nodes.map((node) => node.lot).sort()).toEqual(lotNames);
    expect(new Set(nodes.map((node) => node.buildId)).size).toBe(1);
    expect(nodes.every((node) => node.sku === 'COMP' && node.quantity === 1)).toBe(true);
    // The cap filled the first response, so its lots were not read; the last lot was, in the second.
    expect(pages[0]?.nodes.every((node) => node.truncated && node.continuation?.depth === 4 && node.continuation.cursor === null)).toBe(true);
    expect(pages[1]?.nodes[0]).toMatchObject({ truncated: false, continuation: null, children: [] });
  }, 240_000);
});
