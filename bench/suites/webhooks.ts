import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'node:http';
import { percentile, type Measure, type Suite } from './suite.ts';

/**
 * Webhooks on the local stack (docs/webhooks.md, docs/performance.md "Webhooks"):
 * - commit → first attempt: events committed one by one with the real writer, each delivered to
 *   an endpoint on 127.0.0.1; the delay from the event's commit time (`occurredAt`, set at commit)
 *   to its arrival at the receiver, p50 and p99 over 1,000 events (quick: 40). Targets ≤ 1 s, ≤ 5 s.
 * - throughput: 10,000 events (quick: 300) to 3 endpoints, deliveries/s from the first commit to
 *   the last arrival, next to two loops in the same run, 20 at a time (the delivery worker's
 *   concurrency locally), over the same envelopes and receiver: a raw loop that signs and POSTs,
 *   and a durable raw loop that also claims each delivery with one conditional put and settles it
 *   with one update in the same DynamoDB Local (the floor of an at-least-once delivery with a
 *   log, the fair anchor); and the DynamoDB write actions the pipeline committed per delivery,
 *   counted in the stack's process.
 */

interface Receiver {
  server: Server;
  port: number;
  arrivals: Map<string, number[]>;
  count(): number;
}

async function startReceiver(): Promise<Receiver> {
  const arrivals = new Map<string, number[]>();
  let total = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = String(req.headers['webhook-id']);
      const list = arrivals.get(id) ?? [];
      list.push(Date.now());
      arrivals.set(id, list);
      total += 1;
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as AddressInfo).port, arrivals, count: () => total };
}

async function waitUntil(done: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!done()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

export const webhooksSuite: Suite = {
  name: 'webhooks',
  async run(context) {
    const [{ createKey }, { keyRegistry }, { TransactionWriter }, { TABLES }, { signatureHeaders }, { documentClient }, { PutCommand, UpdateCommand }] = await Promise.all([
      import('../../lib/platform/auth/manage-keys.ts'),
      import('../../local/key-registry.ts'),
      import('../../lib/platform/dynamo/transaction-writer.ts'),
      import('../../lib/platform/storage/tables.ts'),
      import('../../lib/webhooks/domain/signing.ts'),
      import('../../lib/platform/aws/dynamodb-client.ts'),
      import('@aws-sdk/lib-dynamodb'),
    ]);
    const writer = new TransactionWriter({ events: process.env[TABLES.events.envVar] ?? '', audit: process.env[TABLES.audit.envVar] ?? '' });
    const receiver = await startReceiver();
    const base = context.stack.baseUrl;
    const measures: Measure[] = [];
    try {
      const tenant = async () => {
        const organizationId = `org_whb${randomUUID().slice(0, 8)}`;
        const { key } = await createKey(keyRegistry(), { organizationId, name: 'bench webhooks', scopes: ['all'], environment: 'test' });
        return { organizationId, key };
      };
      const register = async (key: string, path: string) => {
        const response = await fetch(`${base}/v1/webhooks/endpoints`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
          body: JSON.stringify({ url: `http://127.0.0.1:${receiver.port}${path}` }),
        });
        if (response.status !== 201) throw new Error(`registering an endpoint: ${response.status} ${await response.text()}`);
        return (await response.json()) as { id: string; secret: string };
      };
      const commitEvents = (organizationId: string, count: number) =>
        writer.run({ organizationId, actor: { type: 'system', id: 'bench' }, traceId: null }, async () => ({
          writes: [],
          events: Array.from({ length: count }, (_, index) => ({ type: 'item.created' as const, data: { item: { id: `itm_bench${index}`, sku: `WHB-${index}` } } })),
          result: undefined,
        }));

      // ── Commit → first attempt ──────────────────────────────────────────────────────────
      const latencyEvents = context.quick ? 40 : 1000;
      const latencyTenant = await tenant();
      await register(latencyTenant.key, '/latency');
      const committedAt = new Map<string, number>();
      for (let index = 0; index < latencyEvents; index += 1) {
        const { events } = await commitEvents(latencyTenant.organizationId, 1);
        for (const event of events) committedAt.set(event.id, Date.parse(event.occurredAt));
        // A steady trickle, as writes come, rather than one burst.
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await waitUntil(() => [...committedAt.keys()].every((id) => receiver.arrivals.has(id)), 120_000);
      const delays = [...committedAt].flatMap(([id, at]) => (receiver.arrivals.get(id)?.[0] === undefined ? [] : [(receiver.arrivals.get(id)?.[0] ?? 0) - at]));
      context.log(`latency: ${delays.length} of ${latencyEvents} events arrived`);
      measures.push(
        { name: 'commit → first attempt p50', value: percentile(delays, 0.5), unit: 'ms', target: { comparison: '<=', value: 1000 }, note: `${delays.length} events, one per commit` },
        { name: 'commit → first attempt p99', value: percentile(delays, 0.99), unit: 'ms', target: { comparison: '<=', value: 5000 }, note: `${delays.length} events, one per commit` },
      );

      // ── Throughput: N events × 3 endpoints ─────────────────────────────────────────────
      const events = context.quick ? 300 : 10_000;
      const throughputTenant = await tenant();
      const endpoints = await Promise.all([0, 1, 2].map((index) => register(throughputTenant.key, `/throughput/${index}`)));
      const before = receiver.count();
      const writeActionsBefore = await context.stack.writeActions();
      const started = performance.now();
      const envelopes: string[] = [];
      for (let done = 0; done < events; ) {
        const size = Math.min(90, events - done);
        const committed = await commitEvents(throughputTenant.organizationId, size);
        envelopes.push(...committed.events.map((event) => JSON.stringify(event)));
        done += size;
      }
      const expected = events * endpoints.length;
      const arrived = await waitUntil(() => receiver.count() - before >= expected, 600_000);
      const pipelineSeconds = (performance.now() - started) / 1000;
      const delivered = receiver.count() - before;
      const pipelineWriteActions = (await context.stack.writeActions()) - writeActionsBefore;
      context.log(`throughput: ${delivered} of ${expected} deliveries in ${pipelineSeconds.toFixed(1)} s${arrived ? '' : ' (timed out)'}, ${pipelineWriteActions} write actions`);

      // The raw loop: the same envelopes, signed the same way, POSTed to the same receiver.
      const agent = new Agent({ keepAlive: true, maxSockets: 20 });
      const post = (path: string, body: string, headers: Record<string, string>) =>
        new Promise<void>((resolve, reject) => {
          const req = request({ host: '127.0.0.1', port: receiver.port, path, method: 'POST', agent, headers: { 'content-type': 'application/json', ...headers } }, (res) => {
            res.resume();
            res.on('end', resolve);
          });
          req.on('error', reject);
          req.end(body);
        });
      const jobs = endpoints.flatMap((endpoint, index) => envelopes.map((body) => ({ path: `/raw/${index}`, body, secret: endpoint.secret, endpoint: index })));
      const inTwenties = async (each: (job: (typeof jobs)[number]) => Promise<void>) => {
        const loopStarted = performance.now();
        let next = 0;
        await Promise.all(
          Array.from({ length: 20 }, async () => {
            while (next < jobs.length) {
              const job = jobs[next];
              next += 1;
              if (!job) break;
              await each(job);
            }
          }),
        );
        return (performance.now() - loopStarted) / 1000;
      };
      const signedPost = (job: (typeof jobs)[number]) => {
        const id = (JSON.parse(job.body) as { id: string }).id;
        return post(job.path, job.body, signatureHeaders({ eventId: id, timestampSeconds: Math.floor(Date.now() / 1000), body: job.body, secrets: [job.secret] })).then(() => id);
      };
      const rawSeconds = await inTwenties(async (job) => {
        await signedPost(job);
      });
      // The durable loop: a delivery log in the same DynamoDB Local, one claim and one settle per delivery.
      const logTable = process.env[TABLES.inventory.envVar] ?? '';
      const run = randomUUID().slice(0, 8);
      const durableSeconds = await inTwenties(async (job) => {
        const key = { pk: `BENCH#DURABLE#${run}`, sk: `${job.endpoint}#${(JSON.parse(job.body) as { id: string }).id}` };
        await documentClient.send(new PutCommand({ TableName: logTable, Item: { ...key, status: 'attempting', attempts: 1 }, ConditionExpression: 'attribute_not_exists(pk)' }));
        await signedPost(job);
        await documentClient.send(
          new UpdateCommand({ TableName: logTable, Key: key, UpdateExpression: 'SET #status = :delivered, settledAt = :now', ExpressionAttributeNames: { '#status': 'status' }, ExpressionAttributeValues: { ':delivered': 'delivered', ':now': new Date().toISOString() } }),
        );
      });
      agent.destroy();
      const pipelineRate = delivered / pipelineSeconds;
      const durableRate = jobs.length / durableSeconds;
      measures.push(
        { name: `deliveries/s, ${events} events × 3 endpoints`, value: pipelineRate, unit: '/s', note: 'commit → stream → dispatcher → queue → worker → receiver' },
        { name: 'raw loop: signed POSTs/s, same envelopes', value: jobs.length / rawSeconds, unit: '/s', note: '20 concurrent, keep-alive, same receiver' },
        { name: 'durable raw loop: claimed, signed, POSTed and settled deliveries/s', value: durableRate, unit: '/s', note: '20 concurrent: a conditional put, the POST, an update, per delivery' },
        { name: 'webhooks: deliveries/s ÷ durable raw loop', value: pipelineRate / durableRate, unit: '×', target: { comparison: '>=', value: 0.5 }, note: 'same run, same envelopes and receiver' },
        { name: 'webhooks: write actions per delivery', value: delivered === 0 ? Number.NaN : pipelineWriteActions / delivered, unit: 'actions', note: 'DynamoDB write actions the stack committed from the first commit to the last arrival ÷ deliveries (the events\' own commits not included)' },
      );
    } finally {
      receiver.server.closeAllConnections();
      receiver.server.close();
    }
    return measures;
  },
};
