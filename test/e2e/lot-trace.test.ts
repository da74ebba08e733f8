import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { createInventoryClient, traceLotAll, type LotTrace } from '../../client/index.ts';
import { baseUrl, callApi, createTestKey } from '../support/api.ts';
import { importAndWait } from '../support/imports.ts';
import { eventuallyTraced, LOT_CHAIN_IMPORTS, oneBuildOfManyLotsImports, shapeOf } from '../support/lots.ts';
import { expectProblem } from '../support/problem.ts';

/**
 * GET /v1/lots/trace over HTTP against `npm start` (docs/inventory.md "Tracing a lot"): the chain
 * built through imports, the route both ways, each documented error, the scope, the client's
 * `traceLotAll` and the CLI. Every response is checked against docs/openapi.json (callApi).
 */

let key = '';
let organizationId = '';

const tracePath = (query: Record<string, string>) => `/v1/lots/trace?${new URLSearchParams(query).toString()}`;
const get = (query: Record<string, string>, as = key) => callApi(tracePath(query), { key: as });
async function traced(query: Record<string, string>): Promise<LotTrace> {
  const response = await get(query);
  expect(response.status, await response.clone().text()).toBe(200);
  return (await response.json()) as LotTrace;
}

beforeAll(async () => {
  const created = await createTestKey();
  key = created.key;
  organizationId = created.record.organizationId;
  for (const submission of LOT_CHAIN_IMPORTS) {
    const job = await importAndWait(key, { ...submission, duplicateStrategy: 'fail' });
    expect(job.status, JSON.stringify(job.counts)).toBe('succeeded');
  }
  // The builds are traceable moments after their import commits (the index is eventually consistent).
  await eventuallyTraced(
    () => traced({ sku: 'FIN', lot: 'F2', direction: 'backward' }),
    (trace) => trace.nodeCount === 5,
  );
  // Each index entry arrives on its own: the forward chain from C1 is waited for too.
  await eventuallyTraced(
    () => traced({ sku: 'COMP', lot: 'C1', direction: 'forward' }),
    (trace) => trace.nodeCount === 3,
  );
  await eventuallyTraced(
    () => traced({ sku: 'COMP', lot: 'C2', direction: 'forward' }),
    (trace) => trace.nodeCount === 2,
  );
}, 120_000);

describe('GET /v1/lots/trace', () => {
  it('forward: the finished lots that contain component lot C1', async () => {
    const trace = await traced({ sku: 'COMP', lot: 'C1', direction: 'forward' });

    expect(shapeOf(trace.nodes)).toEqual([{ 'SUB/S1': [{ 'FIN/F1': [] }, { 'FIN/F2': [] }] }]);
    expect(trace).toMatchObject({ sku: 'COMP', lot: 'C1', direction: 'forward', depth: 5, truncated: false, continuation: null });
    expect(trace.nodes[0]).toMatchObject({
      itemId: expect.stringMatching(/^itm_/),
      buildId: expect.stringMatching(/^bld_/),
      bomId: expect.stringMatching(/^bom_/),
      builtAt: expect.any(String),
    });
  });

  it('backward: what F2 was made of, with depth', async () => {
    expect(shapeOf((await traced({ sku: 'FIN', lot: 'F2', direction: 'backward' })).nodes)).toEqual([
      { 'SUB/S1': [{ 'COMP/C1': [] }] },
      { 'SUB/S2': [{ 'COMP/C2': [] }] },
      { 'SCREW/null': [] },
    ]);
    expect(shapeOf((await traced({ sku: 'FIN', lot: 'F2', direction: 'backward', depth: '1' })).nodes)).toEqual([
      { 'SUB/S1': [] },
      { 'SUB/S2': [] },
      { 'SCREW/null': [] },
    ]);
  });

  it.each([
    ['depth 0', { sku: 'COMP', lot: 'C1', direction: 'forward', depth: '0' }, 400, 'customer-api.validation.failed'],
    ['depth 11', { sku: 'COMP', lot: 'C1', direction: 'forward', depth: '11' }, 400, 'customer-api.validation.failed'],
    ['no direction', { sku: 'COMP', lot: 'C1' }, 400, 'customer-api.validation.failed'],
    ['an unknown direction', { sku: 'COMP', lot: 'C1', direction: 'sideways' }, 400, 'customer-api.validation.failed'],
    ['an item not tracked by lot', { sku: 'SCREW', lot: 'C1', direction: 'forward' }, 400, 'customer-api.lots.not-lot-tracked'],
    ['a cursor not issued for the lot', { sku: 'COMP', lot: 'C1', direction: 'forward', cursor: 'abc.def' }, 400, 'customer-api.pagination.invalid-cursor'],
    ['an unknown sku', { sku: 'NOPE', lot: 'C1', direction: 'forward' }, 404, 'customer-api.inventory.not-found'],
    ['a lot the item never had', { sku: 'COMP', lot: 'C404', direction: 'backward' }, 404, 'customer-api.inventory.not-found'],
  ])('%s: %i %s', async (_case, query, status, code) => {
    await expectProblem(await get(query), status, code);
  });

  it("another organization's sku is the same 404", async () => {
    const outsider = await createTestKey();

    await expectProblem(await get({ sku: 'COMP', lot: 'C1', direction: 'forward' }, outsider.key), 404, 'customer-api.inventory.not-found');
  });

  it('a key without inventory:read is refused with 403', async () => {
    const narrow = await createTestKey({ organizationId, scopes: ['boms:read'] });

    await expectProblem(await get({ sku: 'COMP', lot: 'C1', direction: 'forward' }, narrow.key), 403, 'customer-api.auth.insufficient-scope');
  });

  it('the client traces it whole', async () => {
    const client = createInventoryClient({ baseUrl: baseUrl(), apiKey: key });

    const trace = await traceLotAll(client, { sku: 'COMP', lot: 'C2', direction: 'forward' });

    expect(shapeOf(trace.nodes)).toEqual([{ 'SUB/S2': [{ 'FIN/F2': [] }] }]);
  });

  it('the CLI prints it: lots trace --sku --lot --direction --depth', async () => {
    const cli = join(import.meta.dirname, '..', '..', 'client', 'cli', 'main.ts');
    const env = { ...process.env, INVENTORY_API_URL: baseUrl(), INVENTORY_API_KEY: key };

    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', cli, 'lots', 'trace', '--sku', 'FIN', '--lot', 'F1', '--direction', 'backward', '--depth', '2'],
      { env, encoding: 'utf8' },
    );

    expect(shapeOf((JSON.parse(stdout) as LotTrace).nodes)).toEqual([{ 'SUB/S1': [{ 'COMP/C1': [] }] }, { 'SCREW/null': [] }]);
  });

  it('a build that drew 1,001 lots: the client and the CLI trace it to its end, every lot once', async () => {
    const many = await createTestKey();
    const { lotNames, imports } = oneBuildOfManyLotsImports(1001);
    for (const submission of imports) {
      const job = await importAndWait(many.key, { ...submission, duplicateStrategy: 'fail' }, 180_000);
      expect(job.status, `${submission.kind}: ${JSON.stringify(job.counts)}`).toBe('succeeded');
    }
    const client = createInventoryClient({ baseUrl: baseUrl(), apiKey: many.key });
    // Depth 1: the split build is the point; deeper, each of the first 1,000 lots would be its own continuation.
    const request = { sku: 'FIN', lot: 'F1', direction: 'backward', depth: 1 } as const;

    const trace = await eventuallyTraced(
      () => traceLotAll(client, request),
      (found) => found.nodeCount > 0,
      30_000,
    );
    const cli = join(import.meta.dirname, '..', '..', 'client', 'cli', 'main.ts');
    const env = { ...process.env, INVENTORY_API_URL: baseUrl(), INVENTORY_API_KEY: many.key };
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', cli, 'lots', 'trace', '--sku', 'FIN', '--lot', 'F1', '--direction', 'backward', '--depth', '1'],
      { env, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 },
    );

    expect(trace).toMatchObject({ nodeCount: 1001, truncated: false, continuation: null });
    expect(trace.nodes.map((node) => node.lot).sort()).toEqual(lotNames);
    expect((JSON.parse(stdout) as LotTrace).nodes.map((node) => node.lot).sort()).toEqual(lotNames);
  }, 300_000);
});
