import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAwsStack } from '../local/aws-stack/index.ts';

/**
 * Write path and feed read cost on the local stack (DynamoDB Local): median and p90 latency of
 *  - one command through the TransactionWriter (1 record + 1 event + audit entry),
 *  - the same with an Idempotency-Key claim before and its completion in the transaction,
 *  - one feed page of 50 events.
 * Needs Java (it starts its own in-memory stack), so it is not part of `npm run bench`:
 *   npx tsx bench/write-path.ts
 * Absolute figures are DynamoDB Local's, not AWS's; compare ratios between the three.
 */

const ROUNDS = 200;

function summary(samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? 0;
  return `median ${at(0.5).toFixed(1)} ms, p90 ${at(0.9).toFixed(1)} ms (n=${sorted.length})`;
}

async function timed(rounds: number, run: (index: number) => Promise<unknown>): Promise<number[]> {
  const samples: number[] = [];
  for (let index = 0; index < rounds; index += 1) {
    const started = performance.now();
    await run(index);
    samples.push(performance.now() - started);
  }
  return samples;
}

async function main(): Promise<void> {
  const stateDir = mkdtempSync(join(tmpdir(), 'bench-write-path-'));
  const stack = await startAwsStack({ stateDir, inMemory: true });
  Object.assign(process.env, stack.env);
  try {
    // Store modules read endpoints and table names from the environment at import.
    const { TABLES } = await import('../lib/platform/storage/tables.ts');
    const { TransactionWriter } = await import('../lib/platform/dynamo/transaction-writer.ts');
    const { IdempotencyStore } = await import('../lib/platform/dynamo/idempotency-store.ts');
    const { EventsStore } = await import('../lib/events/store/events-store.ts');
    const { EventFeed } = await import('../lib/events/domain/read-feed.ts');
    const { CursorCodec } = await import('../lib/platform/pagination/cursor.ts');
    const { EVENT_EXAMPLES } = await import('../lib/events/contracts/events.ts');
    const table = (id: keyof typeof TABLES) => stack.env[TABLES[id].envVar] ?? '';
    const idempotency = new IdempotencyStore(table('idempotency'), 30);
    const writer = new TransactionWriter({ events: table('events'), audit: table('audit') }, idempotency);
    const organizationId = 'org_bench';
    const context = { organizationId, actor: { type: 'api-key' as const, id: 'key_bench' }, traceId: null };
    const plan = (index: number) => async () => ({
      writes: [{ item: { Put: { TableName: table('inventory'), Item: { pk: `ORG#${organizationId}#BENCH`, sk: `W#${index}-${Math.random()}` } } } }],
      audit: { kind: 'bom.created' as const, target: { kind: 'bench', id: String(index) }, summary: 'bench', changes: [] },
      events: [{ type: 'item.created' as const, data: EVENT_EXAMPLES['item.created'].data }],
      result: index,
    });

    await timed(20, (index) => writer.run(context, plan(index)));
    const plain = await timed(ROUNDS, (index) => writer.run(context, plan(index)));
    const withKey = await timed(ROUNDS, async (index) => {
      const claim = await idempotency.claim(organizationId, `bench-${index}-${Math.random()}`, 'fingerprint', new Date());
      if (claim.kind !== 'claimed') throw new Error('expected a fresh claim');
      await writer.run({ ...context, idempotency: { key: String(index), claim: claim.claim } }, plan(index), () => ({
        statusCode: 201,
        headers: {},
        body: '{}',
      }));
    });
    const feed = new EventFeed(new EventsStore(table('events')), new CursorCodec('b'.repeat(32)));
    const pages = await timed(ROUNDS, () => feed.read(organizationId, { limit: 50 }));

    console.log('write path on DynamoDB Local');
    console.log(`  command (record + event + audit):            ${summary(plain)}`);
    console.log(`  command with Idempotency-Key claim + commit: ${summary(withKey)}`);
    console.log(`  feed page of 50 events:                      ${summary(pages)}`);
  } finally {
    await stack.stop();
    rmSync(stateDir, { recursive: true, force: true });
  }
}

await main();
