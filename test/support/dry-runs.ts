import { expect } from 'vitest';
import type { DuplicateStrategy, RowError } from '../../lib/imports/domain/types.ts';
import type { JobCounts } from '../../lib/imports/domain/job.ts';
import { ImportJobProcessor } from '../../lib/imports/domain/pipeline/process-job.ts';
import type { ProcessPorts } from '../../lib/imports/domain/pipeline/ports.ts';
import type { ImportRecords } from '../../lib/imports/domain/kind-definition.ts';
import type { CommandWriter } from '../../lib/platform/write/ports.ts';
import { dynamoClient } from '../../lib/platform/aws/dynamodb-client.ts';
import { bulkChunkActions, type StoreWrite } from '../../lib/platform/dynamo/transaction-writer.ts';
import { tableName, transactionWriter } from './events.ts';
import { commitQueuedJob, csvOf, dryRunOverlaysStore, feedOf, filesStore, importJobsStore, importRecords, runImportInProcess, storedJob } from './imports.ts';

/**
 * Helpers for the dry-run suites (docs/imports.md "Dry runs"): jobs run in process through many
 * short invocations and small transactions, so that a few dozen rows span several chunks and
 * resumes; an organization's stored data as a comparable snapshot; a job's verdicts.
 */

/** What a job decided: its counts and every row error. */
export interface Verdicts {
  counts: JobCounts;
  errors: RowError[];
}

/**
 * How a job's invocations end: after `callsPerInvocation` looks at the clock each (doubled after
 * one that made no progress, as a slow worker would get a fresh message), and the writer dies
 * before its `crashBeforeTransaction`-th transaction (the delivery is then redelivered).
 */
export interface Invocations {
  callsPerInvocation: number;
  crashBeforeTransaction?: number;
  /** Actions per chunk (row errors take one each). */
  chunkActions?: number;
}

function dyingWriter(crashBefore: number | undefined): CommandWriter<StoreWrite> {
  const real = transactionWriter();
  let transactions = 0;
  return {
    async run(context, build, respond) {
      transactions += 1;
      if (transactions === crashBefore) throw new Error('simulated crash before the commit');
      return real.run(context, build, respond);
    },
  };
}

/** Submits (commits) a job and runs it to its end through as many invocations as it takes. */
export async function runJob(
  organizationId: string,
  kind: string,
  file: string,
  options: { duplicateStrategy: DuplicateStrategy; dryRun: boolean; records?: ImportRecords<StoreWrite> } & Invocations,
): Promise<{ jobId: string; verdicts: Verdicts; invocations: number }> {
  const { job } = await commitQueuedJob(organizationId, { kind, file, duplicateStrategy: options.duplicateStrategy, dryRun: options.dryRun });
  const writer = dyingWriter(options.crashBeforeTransaction);
  const ports: ProcessPorts<StoreWrite> = {
    jobs: importJobsStore(),
    files: filesStore(),
    dryRunOverlays: dryRunOverlaysStore(),
    records: options.records ?? importRecords(),
    writer,
    continueLater: async () => undefined,
    chunkActions: bulkChunkActions({ maxActions: options.chunkActions ?? 10 }),
  };
  let calls = options.callsPerInvocation;
  for (let invocation = 1; invocation <= 200; invocation += 1) {
    const before = (await storedJob(organizationId, job.id)).checkpoint;
    let used = 0;
    const remainingMs = () => (used++ < calls ? 60_000 : 0);
    const outcome = await new ImportJobProcessor(ports).process(organizationId, job.id, remainingMs).catch((error: Error) => {
      // The crash: the message is delivered again.
      if (error.message !== 'simulated crash before the commit') throw error;
      return 'crashed' as const;
    });
    if (outcome === 'finished') return { jobId: job.id, verdicts: await verdictsOf(organizationId, job.id), invocations: invocation };
    expect(['continued', 'crashed']).toContain(outcome);
    if ((await storedJob(organizationId, job.id)).checkpoint === before) calls *= 2;
  }
  throw new Error(`Job ${job.id} did not finish in 200 invocations`);
}

export async function verdictsOf(organizationId: string, jobId: string): Promise<Verdicts> {
  const job = await storedJob(organizationId, jobId);
  const errors: RowError[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await importJobsStore().listRowErrors(organizationId, jobId, after, 500);
    errors.push(...page.errors);
    if (!page.more) break;
    after = page.last;
  }
  return { counts: job.counts, errors };
}

/** An item a request of this process wrote (put, updated or deleted), by table and partition key. */
export interface RecordedWrite {
  table: string;
  pk: string;
}

type KeyAttributes = { pk?: string | { S?: string } } | undefined;
type WriteAction = { TableName?: string; Item?: KeyAttributes; Key?: KeyAttributes };

const pkOf = (attributes: KeyAttributes) => {
  const pk = attributes?.pk;
  return typeof pk === 'string' ? pk : (pk?.S ?? '');
};

let recorders = 0;

/**
 * Records every item this process writes from now until `stop`, whatever the table: what a dry
 * run must not write is then known from its own requests, without reading back a table every
 * suite of the run shares (a Scan of it grows with the whole run).
 */
export function recordWrites(): { writes: RecordedWrite[]; stop(): void } {
  const writes: RecordedWrite[] = [];
  const name = `recordWrites${(recorders += 1)}`;
  const add = (table: string | undefined, attributes: KeyAttributes) => writes.push({ table: table ?? '', pk: pkOf(attributes) });
  dynamoClient.middlewareStack.add(
    (next, context) => async (args) => {
      const result = await next(args);
      const operation = String(context.commandName ?? '').replace(/Command$/, '');
      const input = args.input as WriteAction & {
        RequestItems?: Record<string, Array<{ PutRequest?: { Item?: KeyAttributes }; DeleteRequest?: { Key?: KeyAttributes } }>>;
        TransactItems?: Array<Record<string, WriteAction | undefined>>;
      };
      if (operation === 'PutItem') add(input.TableName, input.Item);
      if (operation === 'UpdateItem' || operation === 'DeleteItem') add(input.TableName, input.Key);
      for (const [table, requests] of Object.entries(operation === 'BatchWriteItem' ? (input.RequestItems ?? {}) : {})) {
        for (const request of requests) add(table, request.PutRequest?.Item ?? request.DeleteRequest?.Key);
      }
      for (const action of operation === 'TransactWriteItems' ? (input.TransactItems ?? []) : []) {
        const write = action.Put ?? action.Update ?? action.Delete;
        if (write) add(write.TableName, write.Item ?? write.Key);
      }
      return result;
    },
    { step: 'initialize', name },
  );
  return { writes, stop: () => dynamoClient.middlewareStack.remove(name) };
}

/** The organization's events feed, each event a comparable string. */
export async function eventsSnapshot(organizationId: string): Promise<string[]> {
  return (await feedOf(organizationId)).map((event) => JSON.stringify(canonical(event)));
}

/** Of a dry run's writes, those outside its job (the job, its row errors and its audit entries): none may exist. */
export function writesBeyondTheJob(writes: RecordedWrite[]): RecordedWrite[] {
  return writes.filter(({ table, pk }) => !(table === tableName('audit') || (table === tableName('inventory') && pk.includes('#IMPJOB#'))));
}

/** Objects with their keys sorted, at every depth: the store does not keep attribute order. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value === null || typeof value !== 'object' || value instanceof Set) return value instanceof Set ? [...(value as Set<unknown>)].sort() : value;
  return Object.fromEntries(
    Object.entries(value)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([key, inner]) => [key, canonical(inner)]),
  );
}

/** The real import records, counting what they read from the store (keys, ids, places). */
export function countingRecords(): { records: ImportRecords<StoreWrite>; reads: () => number } {
  const real = importRecords();
  let reads = 0;
  return {
    reads: () => reads,
    records: {
      getByNaturalKeys: (organizationId, entity, keys) => {
        const list = [...keys];
        reads += list.length;
        return real.getByNaturalKeys(organizationId, entity, list);
      },
      getItemsByIds: (organizationId, ids) => {
        const list = [...ids];
        reads += list.length;
        return real.getItemsByIds(organizationId, list);
      },
      stockRecordsAt: async (organizationId, places) => {
        const found = await real.stockRecordsAt(organizationId, places);
        reads += places.length + found.length;
        return found;
      },
      writesOf: (organizationId, write) => real.writesOf(organizationId, write),
    },
  };
}

/** A catalog with stock: items P1 (reorder point 3), P2, LOT (by lot); locations W1, W2; BOM KIT (P2 from P1 and LOT). */
export async function seedCatalog(organizationId: string): Promise<void> {
  const run = (kind: string, file: string) => runImportInProcess(organizationId, kind, file);
  await run(
    'items',
    csvOf(
      ['sku', 'name', 'reorderPoint', 'trackingMode'],
      [
        ['P1', 'Part 1', '3', 'none'],
        ['P2', 'Part 2', '', 'none'],
        ['LOT', 'Lot part', '', 'lot'],
      ],
    ),
  );
  await run(
    'locations',
    csvOf(
      ['code', 'name', 'type'],
      [
        ['W1', 'Warehouse 1', 'warehouse'],
        ['W2', 'Warehouse 2', 'warehouse'],
      ],
    ),
  );
  await run(
    'boms',
    csvOf(
      ['bomCode', 'targetSku', 'componentSku', 'quantity'],
      [
        ['KIT', 'P2', 'P1', '1'],
        ['KIT', 'P2', 'LOT', '1'],
      ],
    ),
  );
  await run(
    'stock-adjustments',
    csvOf(
      ['reference', 'sku', 'locationCode', 'quantityDelta', 'lot'],
      [
        ['SEED-1', 'P1', 'W1', '4', ''],
        ['SEED-2', 'LOT', 'W1', '2', 'L1'],
      ],
    ),
  );
}
