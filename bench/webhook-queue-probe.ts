import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startStack } from './local-stack.ts';

/**
 * Where webhook deliveries wait (docs/performance.md "Webhooks"): an in-memory `npm start`, one
 * tenant with 3 endpoints on a local receiver, `N` events (default 3,000) committed 90 to a
 * transaction; every 2 s it prints the deliveries so far and the delivery queue's depth (visible,
 * in flight, delayed). A queue that stays empty while deliveries lag points at the dispatcher; one
 * that fills points at the delivery worker.
 *
 *   N=3000 npx tsx bench/webhook-queue-probe.ts
 *
 * With `BENCH_STACK_NODE_ARGS="--cpu-prof --cpu-prof-dir=<dir>"` the stack's process leaves a CPU
 * profile of the run in `<dir>` when it stops.
 */

const stack = await startStack();
Object.assign(process.env, stack.env);
const [{ createKey }, { keyRegistry }, { TransactionWriter }, { TABLES, WEBHOOK_QUEUE }, { SQSClient, GetQueueAttributesCommand }] = await Promise.all([
  import('../lib/platform/auth/manage-keys.ts'),
  import('../local/key-registry.ts'),
  import('../lib/platform/dynamo/transaction-writer.ts'),
  import('../lib/platform/storage/tables.ts'),
  import('@aws-sdk/client-sqs'),
]);
const events = Number(process.env.N ?? 3000);
if (!Number.isInteger(events) || events < 1 || events > 100_000) throw new Error(`N must be 1..100000, got '${process.env.N}'`);

let delivered = 0;
const receiver = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    delivered += 1;
    res.writeHead(204).end();
  });
});
await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
const port = (receiver.address() as AddressInfo).port;

try {
  const organizationId = `org_whq${randomUUID().slice(0, 8)}`;
  const { key } = await createKey(keyRegistry(), { organizationId, name: 'queue probe', scopes: ['all'], environment: 'test' });
  for (const index of [0, 1, 2]) {
    const response = await fetch(`${stack.baseUrl}/v1/webhooks/endpoints`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      body: JSON.stringify({ url: `http://127.0.0.1:${port}/probe/${index}` }),
    });
    if (response.status !== 201) throw new Error(`registering an endpoint: ${response.status} ${await response.text()}`);
  }
  const sqs = new SQSClient({});
  const queueUrl = process.env[WEBHOOK_QUEUE.envVar] ?? '';
  const requestsBefore = await stack.requestCounts();
  const started = performance.now();
  const seconds = () => ((performance.now() - started) / 1000).toFixed(1);
  const sampler = setInterval(() => {
    void sqs
      .send(
        new GetQueueAttributesCommand({
          QueueUrl: queueUrl,
          AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible', 'ApproximateNumberOfMessagesDelayed'],
        }),
      )
      .then(({ Attributes: depth }) =>
        console.log(
          `${seconds()} s: delivered ${delivered}, visible ${depth?.ApproximateNumberOfMessages}, in flight ${depth?.ApproximateNumberOfMessagesNotVisible}, delayed ${depth?.ApproximateNumberOfMessagesDelayed}`,
        ),
      );
  }, 2000);
  const writer = new TransactionWriter({ events: process.env[TABLES.events.envVar] ?? '', audit: process.env[TABLES.audit.envVar] ?? '' });
  for (let done = 0; done < events;) {
    const size = Math.min(90, events - done);
    await writer.run({ organizationId, actor: { type: 'system', id: 'queue-probe' }, traceId: null }, async () => ({
      writes: [],
      events: Array.from({ length: size }, (_, index) => ({
        type: 'item.created' as const,
        data: { item: { id: `itm_probe${done + index}`, sku: `PROBE-${done + index}` } },
      })),
      result: undefined,
    }));
    done += size;
  }
  console.log(`${seconds()} s: ${events} events committed`);
  while (delivered < events * 3) await new Promise((resolve) => setTimeout(resolve, 100));
  clearInterval(sampler);
  console.log(`${seconds()} s: all ${delivered} deliveries, ${(delivered / ((performance.now() - started) / 1000)).toFixed(0)}/s`);
  const requests = await stack.requestCounts();
  const perDelivery = Object.entries(requests).map(
    ([operation, count]) => `${operation} ${((count - (requestsBefore[operation] ?? 0)) / delivered).toFixed(3)}`,
  );
  console.log(`DynamoDB requests per delivery: ${perDelivery.join(', ')}`);
} finally {
  receiver.close();
  await stack.stop();
}
