import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { FINISHED, getJob, itemsCsv, rowCount, startStack, submitItemsFile, type Job, type LocalStack } from './local-stack.ts';
import { rawItemsLoader } from './suites/imports.ts';

/**
 * Imports under a hostile file, and next to a raw loader (docs/imports.md "Row errors" and
 * "Guarantees"), on one in-memory `npm start`:
 *
 * 1. a 100,000-row items file with 6 invalid cells in every row, submitted over HTTP, and right
 *    after it a 1-row file of ANOTHER tenant: how long each takes from submission to its end;
 * 2. the same hostile file processed in this process by the real worker code against the same
 *    DynamoDB Local, with every DynamoDB request counted at the client: what it writes;
 * 3. a valid items file (BENCH_IMPORT_ROWS rows, default 100,000) over HTTP: rows/s end to end;
 * 4. a raw loader writing the same rows' items (record + sku claim) with BatchWriteItem, 25 per
 *    request, with 1 and with 4 writers, into the same DynamoDB Local in the same run.
 *
 * Needs the local stack, so it is not part of `npm run bench`:
 *   npx tsx bench/imports-under-load.ts
 * DynamoDB Local's latency is not AWS's: the figures compare local runs (and the import with the
 * raw loader); they do not forecast AWS.
 */

const HOSTILE_ROWS = 100_000;

function hostileItemsFile(rows: number): string {
  const lines = ['sku,name,unit,barcode,reorderPoint,trackingMode'];
  for (let index = 0; index < rows; index += 1) lines.push(`\u0001${index},,\u0001,\u0001,x,y`);
  return `${lines.join('\n')}\n`;
}

/** Polls until the job has finished; its end is the first poll that sees it finished. */
async function finished(stack: { baseUrl: string }, key: string, id: string): Promise<{ job: Job; endedAt: number }> {
  for (;;) {
    const job = await getJob(stack.baseUrl, key, id);
    if (FINISHED.has(job.status)) return { job, endedAt: performance.now() };
    await sleep(100);
  }
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

async function hostileOverHttp(stack: LocalStack, otherKey: string): Promise<void> {
  const hostile = await submitItemsFile(stack, stack.key, hostileItemsFile(HOSTILE_ROWS));
  const small = await submitItemsFile(stack, otherKey, 'sku,name\nOK-1,Fine\n');
  const [hostileEnd, smallEnd] = await Promise.all([finished(stack, stack.key, hostile.id), finished(stack, otherKey, small.id)]);
  const { counts } = hostileEnd.job;
  console.log(`hostile file: ${HOSTILE_ROWS} rows × 6 invalid cells → ${hostileEnd.job.status}, failed ${counts.failed} of ${counts.totalRows}`);
  console.log(`  submitted → finished             ${seconds(hostileEnd.endedAt - hostile.submittedAt).padStart(8)}`);
  console.log(`  other tenant's 1-row job after it ${seconds(smallEnd.endedAt - small.submittedAt).padStart(8)} (${smallEnd.job.status})`);
}

/** Every DynamoDB request of this process, by command, with the write actions it carried. */
async function countRequests() {
  const { documentClient } = await import('../lib/platform/aws/dynamodb-client.ts');
  const requests = new Map<string, number>();
  let writeActions = 0;
  documentClient.middlewareStack.add(
    (next, context) => async (args) => {
      requests.set(context.commandName ?? '?', (requests.get(context.commandName ?? '?') ?? 0) + 1);
      // The document client hands its commands to the low-level client, whose names these are.
      const input = args.input as { TransactItems?: unknown[]; RequestItems?: Record<string, unknown[]> };
      if (context.commandName === 'TransactWriteItemsCommand') writeActions += input.TransactItems?.length ?? 0;
      if (context.commandName === 'BatchWriteItemCommand') writeActions += Object.values(input.RequestItems ?? {}).reduce((sum, list) => sum + list.length, 0);
      if (['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand'].includes(context.commandName ?? '')) writeActions += 1;
      return next(args);
    },
    { step: 'initialize', name: 'benchRequestCounter' },
  );
  return {
    reset: () => ((writeActions = 0), requests.clear()),
    read: () => ({ writeActions, requests: Object.fromEntries(requests) }),
  };
}

async function hostileInProcess(counter: Awaited<ReturnType<typeof countRequests>>): Promise<void> {
  const [
    { ImportJobSubmitter },
    { ImportJobProcessor },
    { ImportJobsStore },
    { FilesStore },
    { TransactionWriter, bulkChunkActions },
    { TABLES, BUCKET_ENV_VAR },
    { ImportRecordsStore },
  ] = await Promise.all([
    import('../lib/imports/domain/submit-job.ts'),
    import('../lib/imports/domain/pipeline/process-job.ts'),
    import('../lib/imports/store/import-jobs-store.ts'),
    import('../lib/platform/aws/files-store.ts'),
    import('../lib/platform/dynamo/transaction-writer.ts'),
    import('../lib/platform/storage/tables.ts'),
    import('../lib/imports/store/import-records.ts'),
  ]);
  const env = (name: string) => process.env[name] ?? '';
  const jobs = new ImportJobsStore(env(TABLES.inventory.envVar));
  const files = new FilesStore(env(BUCKET_ENV_VAR));
  const writer = new TransactionWriter({ events: env(TABLES.events.envVar), audit: env(TABLES.audit.envVar) });
  const organizationId = `org_bench_${randomUUID().slice(0, 8)}`;
  const submitter = new ImportJobSubmitter({ files, jobs, queue: { send: async () => undefined } });
  const plan = await submitter.prepare(
    organizationId,
    { kind: 'items', duplicateStrategy: 'fail', file: { fileName: 'hostile.csv', content: Buffer.from(hostileItemsFile(HOSTILE_ROWS)) } },
    new Date(),
  );
  await writer.run({ organizationId, actor: { type: 'system', id: 'bench' }, traceId: null }, async () => plan);
  // In the active index the sweeper leaves it alone; no message is sent, so the server's worker never sees it.
  await jobs.markDispatched(organizationId, plan.result.id);
  const processor = new ImportJobProcessor({
    jobs,
    files,
    records: new ImportRecordsStore(env(TABLES.inventory.envVar)),
    writer,
    continueLater: async () => {
      throw new Error('the hostile file did not finish in one invocation');
    },
    chunkActions: bulkChunkActions(),
  });
  counter.reset();
  const started = performance.now();
  const outcome = await processor.process(organizationId, plan.result.id, () => 60_000 - (performance.now() - started));
  const elapsed = performance.now() - started;
  const { writeActions, requests } = counter.read();
  const job = await jobs.get(organizationId, plan.result.id);
  console.log(`hostile file, in process (one invocation of the worker code): ${outcome} in ${seconds(elapsed)}`);
  console.log(`  errors stored ${job?.storedErrors}, counted but not stored ${job?.unstoredErrors}`);
  console.log(`  DynamoDB write actions ${writeActions}; requests ${JSON.stringify(requests)}`);
}

async function validOverHttp(stack: LocalStack, rows: number): Promise<number> {
  const { id, submittedAt } = await submitItemsFile(stack, stack.key, itemsCsv(rows));
  const { job, endedAt } = await finished(stack, stack.key, id);
  const rate = rows / ((endedAt - submittedAt) / 1000);
  console.log(`valid file: ${rows} new items → ${job.status} in ${seconds(endedAt - submittedAt)} = ${Math.round(rate)} rows/s end to end`);
  return rate;
}

/** The rows' items as the import writes them (record + sku claim), written with BatchWriteItem by `writers` loops. */
async function rawLoader(rows: number, writers: number): Promise<number> {
  const rate = await rawItemsLoader(rows, writers);
  console.log(`raw BatchWriteItem loader, ${writers} writer${writers > 1 ? 's' : ''}: ${rows} rows = ${Math.round(rate)} rows/s`);
  return rate;
}

async function main(): Promise<void> {
  const stack = await startStack();
  try {
    // Store code reads its endpoints and table names when it is first imported.
    Object.assign(process.env, stack.env, { LOG_LEVEL: 'silent' });
    const counter = await countRequests();
    const [{ keyRegistry }, { createKey }] = await Promise.all([import('../local/key-registry.ts'), import('../lib/platform/auth/manage-keys.ts')]);
    const other = await createKey(keyRegistry(), {
      organizationId: `org_other_${randomUUID().slice(0, 8)}`,
      name: 'bench',
      scopes: ['all'],
      environment: 'test',
    });

    await hostileOverHttp(stack, other.key);
    await hostileInProcess(counter);
    const rows = process.env.BENCH_IMPORT_ROWS ? rowCount() : 100_000;
    const imported = await validOverHttp(stack, rows);
    const one = await rawLoader(rows, 1);
    const four = await rawLoader(rows, 4);
    console.log(`import ÷ raw loader: ${(imported / one).toFixed(2)} (1 writer), ${(imported / four).toFixed(2)} (4 writers)`);
  } finally {
    await stack.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exitCode = 1;
});
