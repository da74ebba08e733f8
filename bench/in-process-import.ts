import { randomUUID } from 'node:crypto';

/**
 * Import jobs run in process against the stack's tables by the real pipeline (not over HTTP), for
 * what only the worker sees: invocations per job, transaction actions per row. Store code is
 * imported on first call, after the bench has set the stack's env.
 */

const env = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: the stack's env must be in process.env`);
  return value;
};

export async function inProcessImports() {
  const [
    { ImportJobProcessor },
    { ImportJobSubmitter },
    { FilesStore },
    { ImportJobsStore },
    { ImportRecordsStore },
    { BUCKET_ENV_VAR, TABLES },
    { BULK_CHUNK_BYTES, bulkChunkActions, storeWriteBytes, TransactionWriter },
    { buildPorts },
    { importBuilds },
  ] = await Promise.all([
    import('../lib/imports/domain/pipeline/process-job.ts'),
    import('../lib/imports/domain/submit-job.ts'),
    import('../lib/platform/aws/files-store.ts'),
    import('../lib/imports/store/import-jobs-store.ts'),
    import('../lib/imports/store/import-records.ts'),
    import('../lib/platform/storage/tables.ts'),
    import('../lib/platform/dynamo/transaction-writer.ts'),
    import('../lib/builds/store/build-ports.ts'),
    import('../lib/imports/store/import-builds.ts'),
  ]);
  const tables = { inventory: env(TABLES.inventory.envVar), events: env(TABLES.events.envVar), audit: env(TABLES.audit.envVar) };
  const writer = new TransactionWriter({ events: tables.events, audit: tables.audit });
  const jobs = new ImportJobsStore(tables.inventory);
  const files = new FilesStore(env(BUCKET_ENV_VAR));

  /** Commits a job as submission does, out of the dispatch index (or the stack's own worker would take it). */
  async function submit(organizationId: string, kind: string, csv: string): Promise<string> {
    const plan = await new ImportJobSubmitter({ files, jobs, queue: { send: async () => undefined } }).prepare(
      organizationId,
      { kind, duplicateStrategy: 'fail', file: { fileName: `${kind}.csv`, content: Buffer.from(csv) } },
      new Date(),
    );
    await writer.run({ organizationId, actor: { type: 'system', id: 'bench' }, traceId: null }, async () => plan);
    await jobs.markDispatched(organizationId, plan.result.id);
    return plan.result.id;
  }

  /** Runs a submitted job in invocations of `budgetMs`, each handing the rest on as the worker does; how many it took. */
  async function process(
    organizationId: string,
    jobId: string,
    budgetMs: number,
  ): Promise<{ invocations: number; counts: Record<string, number>; status: string }> {
    let handoffs = 0;
    const processor = new ImportJobProcessor({
      jobs,
      files,
      records: new ImportRecordsStore(tables.inventory),
      writer,
      // As the worker runs them: each imported build a build job (docs/boms.md "Builds").
      builds: importBuilds(buildPorts(tables)),
      continueLater: async (message) => void (handoffs = message.handoffsWithoutProgress ?? 0),
      chunkActions: bulkChunkActions(),
      chunkBytes: BULK_CHUNK_BYTES,
      writeBytes: storeWriteBytes,
    });
    let invocations = 0;
    let outcome = 'continued';
    while (outcome === 'continued' && invocations < 500) {
      invocations += 1;
      const deadline = Date.now() + budgetMs;
      outcome = await processor.process(organizationId, jobId, () => deadline - Date.now(), handoffs);
    }
    if (outcome !== 'finished') throw new Error(`job ${jobId}: the last invocation ended '${outcome}'`);
    const job = await jobs.get(organizationId, jobId);
    return { invocations, counts: { ...job?.counts }, status: job?.status ?? 'missing' };
  }

  /** Submits and runs a whole job; throws unless every row succeeded. */
  async function runWhole(organizationId: string, kind: string, csv: string): Promise<void> {
    const run = await process(organizationId, await submit(organizationId, kind, csv), 600_000);
    if (run.status !== 'succeeded') throw new Error(`${kind} job ended ${run.status}: ${JSON.stringify(run.counts)}`);
  }

  return { tables, submit, process, runWhole, newOrganization: (prefix: string) => `org_${prefix}_${randomUUID().slice(0, 8)}` };
}

/** Items `skus`, one bin `A1`, and a stock record of each there holding `quantity`, all made by real imports. */
export async function stockAtOneBin(
  imports: Awaited<ReturnType<typeof inProcessImports>>,
  organizationId: string,
  skus: readonly string[],
  quantity: number,
): Promise<void> {
  const csv = (header: string, rows: readonly string[]) => `${[header, ...rows].join('\n')}\n`;
  await imports.runWhole(
    organizationId,
    'items',
    csv(
      'sku,name',
      skus.map((sku) => `${sku},Item ${sku}`),
    ),
  );
  await imports.runWhole(organizationId, 'locations', csv('code,name,type', ['A1,Bin A1,bin']));
  await imports.runWhole(
    organizationId,
    'po-receipts',
    csv(
      'poNumber,sku,locationCode,quantity',
      skus.map((sku) => `PO-SEED,${sku},A1,${quantity}`),
    ),
  );
}
