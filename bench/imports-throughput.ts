import { setTimeout as sleep } from 'node:timers/promises';
import { FINISHED, getJob, itemsCsv, rowCount, startStack, submitItemsFile } from './local-stack.ts';

/**
 * Import throughput end to end (docs/imports.md): one items CSV submitted over HTTP, polled until the
 * job has finished; prints rows/s and where the time went (upload, queue wait, processing).
 *
 * Needs the local stack, so it is not part of `npm run bench`. Run it with
 *   npx tsx bench/imports-throughput.ts            # starts its own in-memory `npm start`
 *   BENCH_BASE_URL=http://127.0.0.1:3000 BENCH_API_KEY=ik_… npx tsx bench/imports-throughput.ts
 *                                                  # against a running `npm start` (key with imports scopes)
 * BENCH_IMPORT_ROWS (default 10000, at most 100000) sets the file size. DynamoDB Local 3.x takes
 * transactions of 100 actions as AWS does, so chunks are the size they are on AWS; its latency
 * is not AWS's, so the figure compares local runs, it does not forecast AWS.
 */

async function main(): Promise<void> {
  const rows = rowCount();
  const external =
    process.env.BENCH_BASE_URL && process.env.BENCH_API_KEY ? { baseUrl: process.env.BENCH_BASE_URL, key: process.env.BENCH_API_KEY } : undefined;
  const stack = external ? { ...external, stop: async () => undefined } : await startStack();
  try {
    const csv = itemsCsv(rows);
    const { id, submittedAt: started, acceptedAt } = await submitItemsFile(stack, stack.key, csv);
    const acceptedMs = acceptedAt - started;
    let job = await getJob(stack.baseUrl, stack.key, id);
    while (!FINISHED.has(job.status)) {
      if (performance.now() - started > 30 * 60_000) throw new Error(`job ${id} still ${job.status} after 30 min`);
      await sleep(200);
      job = await getJob(stack.baseUrl, stack.key, id);
    }
    const totalSeconds = (performance.now() - started) / 1000;
    const queuedSeconds = (Date.parse(job.startedAt ?? '') - Date.parse(job.submittedAt)) / 1000;
    const processingSeconds = (Date.parse(job.completedAt ?? '') - Date.parse(job.startedAt ?? '')) / 1000;

    console.log(`imports: ${rows} item rows (${(Buffer.byteLength(csv) / 1024).toFixed(0)} KiB) → ${job.status}${job.failure ? ` (${job.failure.code})` : ''}`);
    console.log(`  202 after      ${acceptedMs.toFixed(0).padStart(7)} ms`);
    console.log(`  queued         ${queuedSeconds.toFixed(1).padStart(7)} s`);
    console.log(`  processing     ${processingSeconds.toFixed(1).padStart(7)} s  = ${Math.round(rows / processingSeconds)} rows/s`);
    console.log(`  end to end     ${totalSeconds.toFixed(1).padStart(7)} s  = ${Math.round(rows / totalSeconds)} rows/s`);
    console.log(`  counts         ${JSON.stringify(job.counts)}`);
    if (job.status !== 'succeeded') process.exitCode = 1;
  } finally {
    await stack.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
