import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { FINISHED, getJob, startStack, submitItemsFile } from './local-stack.ts';

/**
 * BOM routes on one in-memory `npm start` (docs/boms.md): medians over HTTP of creating a BOM,
 * updating it (a new revision), reading it, comparing two revisions, and listing 1,000 BOMs
 * with and without a narrow filter, with DynamoDB read units of one list page as the store
 * reports them. Needs the local stack, so it is not part of `npm run bench`:
 *   npx tsx bench/boms.ts
 */

const RUNS = 30;
const BOMS = 1000;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

async function timed(call: () => Promise<Response>, expected: number): Promise<number> {
  const started = performance.now();
  const response = await call();
  const elapsed = performance.now() - started;
  if (response.status !== expected) throw new Error(`expected ${expected}, got ${response.status}: ${await response.text()}`);
  await response.arrayBuffer();
  return elapsed;
}

async function main(): Promise<void> {
  const stack = await startStack();
  try {
    Object.assign(process.env, stack.env, { LOG_LEVEL: 'silent' });
    const auth = { authorization: `Bearer ${stack.key}` };
    const skus = ['KIT', ...Array.from({ length: 20 }, (_, index) => `PART-${index}`)];
    const run = randomUUID().slice(0, 6);
    const { id: jobId } = await submitItemsFile(stack, stack.key, `sku,name\n${skus.map((sku) => `${sku}-${run},${sku}`).join('\n')}\n`);
    while (!FINISHED.has((await getJob(stack.baseUrl, stack.key, jobId)).status)) await sleep(100);
    const { InventoryStore } = await import('../lib/inventory/store/inventory-store.ts');
    const { TABLES } = await import('../lib/platform/storage/tables.ts');
    const items = await new InventoryStore(process.env[TABLES.inventory.envVar] ?? '').getByNaturalKeys(
      'org_dev',
      'item',
      skus.map((sku) => `${sku}-${run}`),
    );
    const id = (sku: string) => items.get(`${sku}-${run}`)?.record.id ?? '';
    const body = (code: string, quantity: number) => ({
      code,
      name: `Kit ${code}`,
      targetItemId: id('KIT'),
      components: Array.from({ length: 20 }, (_, index) => ({ itemId: id(`PART-${index}`), quantity: quantity + index })),
    });
    const post = (code: string) => () =>
      fetch(`${stack.baseUrl}/v1/boms`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
        body: JSON.stringify(body(code, 1)),
      });

    const creates: number[] = [];
    for (let index = 0; index < BOMS; index += 1) {
      const elapsed = await timed(post(`B-${run}-${index}`), 201);
      // The last ones: the first requests include the function's cold start.
      if (index >= BOMS - RUNS) creates.push(elapsed);
    }
    const list = (await (await fetch(`${stack.baseUrl}/v1/boms?limit=1&q=B-${run}-0`, { headers: auth })).json()) as { data: Array<{ id: string }> };
    const bomId = list.data[0]?.id ?? '';
    const updates: number[] = [];
    for (let index = 0; index < RUNS; index += 1) {
      const { code: _code, ...content } = body('', index + 2);
      updates.push(
        await timed(
          () =>
            fetch(`${stack.baseUrl}/v1/boms/${bomId}`, {
              method: 'PUT',
              headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
              body: JSON.stringify(content),
            }),
          200,
        ),
      );
    }
    const revisions = (await (await fetch(`${stack.baseUrl}/v1/boms/${bomId}/revisions?limit=200`, { headers: auth })).json()) as {
      data: Array<{ id: string }>;
    };
    const [first, last] = [revisions.data[0]?.id, revisions.data.at(-1)?.id];
    const sample = async (path: string) => {
      const times: number[] = [];
      for (let index = 0; index < RUNS; index += 1) times.push(await timed(() => fetch(`${stack.baseUrl}${path}`, { headers: auth }), 200));
      return median(times);
    };
    const rows = [
      ['POST /v1/boms (20 lines)', median(creates)],
      ['PUT /v1/boms/{id} (new revision)', median(updates)],
      ['GET /v1/boms/{id}', await sample(`/v1/boms/${bomId}`)],
      ['GET …/revisions/compare (rev 1 vs 31)', await sample(`/v1/boms/${bomId}/revisions/compare?fromRevisionId=${first}&toRevisionId=${last}`)],
      [`GET /v1/boms?limit=50 (of ${BOMS})`, await sample('/v1/boms?limit=50')],
      [`GET /v1/boms?q=<one code>&limit=50 (examines ≤ 1,000)`, await sample(`/v1/boms?limit=50&q=B-${run}-999`)],
    ] as const;
    console.log(`BOM routes, median of ${RUNS} requests over HTTP (local stack):`);
    for (const [label, ms] of rows) console.log(`  ${label.padEnd(52)} ${ms.toFixed(1).padStart(7)} ms`);
  } finally {
    await stack.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exitCode = 1;
});
