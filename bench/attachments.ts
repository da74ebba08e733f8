import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { FINISHED, getJob, startStack, submitItemsFile } from './local-stack.ts';

/**
 * Attachment routes on one in-memory `npm start` (docs/attachments.md): medians over HTTP of
 * uploading a 1 MiB PDF, minting its download URL, fetching it from S3 (s3rver), attaching a link
 * and deleting. Needs the local stack, so it is not part of `npm run bench`:
 *   npx tsx bench/attachments.ts
 */

// Uploads count against the 20-per-minute submission limit, with the items import that makes the target.
const RUNS = 15;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

async function main(): Promise<void> {
  const stack = await startStack();
  try {
    Object.assign(process.env, stack.env, { LOG_LEVEL: 'silent' });
    const auth = { authorization: `Bearer ${stack.key}` };
    const sku = `ATT-${randomUUID().slice(0, 6)}`;
    const { id: jobId } = await submitItemsFile(stack, stack.key, `sku,name\n${sku},Attach target\n`);
    while (!FINISHED.has((await getJob(stack.baseUrl, stack.key, jobId)).status)) await sleep(100);
    const { InventoryStore } = await import('../lib/inventory/store/inventory-store.ts');
    const { TABLES } = await import('../lib/platform/storage/tables.ts');
    const itemId = (await new InventoryStore(process.env[TABLES.inventory.envVar] ?? '').getByNaturalKeys('org_dev', 'item', [sku])).get(sku)?.record.id ?? '';
    const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(1024 * 1024 - 9, 0x20)]);
    const times = { upload: [] as number[], url: [] as number[], fetch: [] as number[], link: [] as number[], delete: [] as number[] };
    const timed = async (bucket: number[], call: () => Promise<Response>, status: number) => {
      const started = performance.now();
      const response = await call();
      const body = Buffer.from(await response.arrayBuffer());
      bucket.push(performance.now() - started);
      if (response.status !== status) throw new Error(`expected ${status}, got ${response.status}: ${body.toString()}`);
      return body;
    };
    for (let index = 0; index < RUNS + 1; index += 1) {
      const form = new FormData();
      form.append('TargetKind', 'item');
      form.append('TargetId', itemId);
      form.append('File', new Blob([pdf]), 'datasheet.pdf');
      const uploaded = JSON.parse(
        (
          await timed(
            times.upload,
            () => fetch(`${stack.baseUrl}/v1/attachments/upload`, { method: 'POST', headers: { ...auth, 'idempotency-key': randomUUID() }, body: form }),
            200,
          )
        ).toString(),
      ) as { id: string };
      const { url } = JSON.parse(
        (await timed(times.url, () => fetch(`${stack.baseUrl}/v1/attachments/${uploaded.id}/download-url`, { headers: auth }), 200)).toString(),
      ) as { url: string };
      await timed(times.fetch, () => fetch(url), 200);
      await timed(
        times.link,
        () =>
          fetch(`${stack.baseUrl}/v1/attachments/links`, {
            method: 'POST',
            headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
            body: JSON.stringify({ targetKind: 'item', targetId: itemId, url: 'https://vendor.example/spec.pdf' }),
          }),
        201,
      );
      await timed(
        times.delete,
        () => fetch(`${stack.baseUrl}/v1/attachments/${uploaded.id}`, { method: 'DELETE', headers: { ...auth, 'idempotency-key': randomUUID() } }),
        204,
      );
    }
    // The first round includes each function's cold start.
    console.log(`Attachment routes, median of ${RUNS} requests over HTTP (local stack, 1 MiB PDF):`);
    for (const [label, values] of Object.entries(times)) console.log(`  ${label.padEnd(8)} ${median(values.slice(1)).toFixed(1).padStart(7)} ms`);
  } finally {
    await stack.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exitCode = 1;
});
