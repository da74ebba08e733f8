import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { FINISHED, getJob, submitFile, type LocalStack } from '../local-stack.ts';

/**
 * A fresh organization on the bench stack: its own API key (so one suite's requests do not use
 * up another's rate-limit window), two items, one finished import job and one BOM.
 */
export interface BenchTenant {
  key: string;
  organizationId: string;
  itemIds: string[];
  jobId: string;
  bomId: string;
}

/** A new organization's API key alone (scopes `all`), for a suite that needs a rate-limit window of its own. */
export async function createBenchKey(name = 'bench'): Promise<string> {
  const [{ createKey }, { keyRegistry }] = await Promise.all([import('../../lib/platform/auth/manage-keys.ts'), import('../../local/key-registry.ts')]);
  const { key } = await createKey(keyRegistry(), { organizationId: `org_bench_${randomUUID().slice(0, 8)}`, name, scopes: ['all'], environment: 'test' });
  return key;
}

export async function createTenant(stack: LocalStack): Promise<BenchTenant> {
  const [{ createKey }, { keyRegistry }] = await Promise.all([import('../../lib/platform/auth/manage-keys.ts'), import('../../local/key-registry.ts')]);
  const organizationId = `org_bench_${randomUUID().slice(0, 8)}`;
  const { key } = await createKey(keyRegistry(), { organizationId, name: 'bench', scopes: ['all'], environment: 'test' });
  const headers = { authorization: `Bearer ${key}` };
  const { id: jobId } = await submitFile(stack, key, 'items', 'sku,name\nBENCH-A,Frame\nBENCH-B,Bolt\n');
  let job = await getJob(stack.baseUrl, key, jobId);
  while (!FINISHED.has(job.status)) {
    await sleep(100);
    job = await getJob(stack.baseUrl, key, jobId);
  }
  const itemIds: string[] = [];
  for (const sku of ['BENCH-A', 'BENCH-B']) {
    // The feed holds item.created events in import order; the items' ids are in them.
    const page = (await (await fetch(`${stack.baseUrl}/v1/events?type=item.created&limit=10`, { headers })).json()) as {
      data: Array<{ data: { item: { id: string; sku: string } } }>;
    };
    const found = page.data.find((event) => event.data.item.sku === sku);
    if (!found) throw new Error(`bench tenant: no item.created event for ${sku}`);
    itemIds.push(found.data.item.id);
  }
  const created = await fetch(`${stack.baseUrl}/v1/boms`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
    body: JSON.stringify({ code: 'BENCH-BOM', name: 'Frame', targetItemId: itemIds[0], components: [{ itemId: itemIds[1], quantity: 2 }] }),
  });
  if (created.status !== 201) throw new Error(`bench tenant: POST /v1/boms answered ${created.status}: ${await created.text()}`);
  const { id: bomId } = (await created.json()) as { id: string };
  return { key, organizationId, itemIds, jobId, bomId };
}
