import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

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

interface Job {
  id: string;
  status: string;
  submittedAt: string;
  startedAt: string | null;
  completedAt: string | null;
  counts: Record<string, number>;
  failure: { code: string; message: string } | null;
}

const FINISHED = new Set(['succeeded', 'completed_with_errors', 'failed']);

function rowCount(): number {
  const rows = Number(process.env.BENCH_IMPORT_ROWS ?? 10_000);
  if (!Number.isInteger(rows) || rows < 1 || rows > 100_000) throw new Error(`BENCH_IMPORT_ROWS must be 1..100000, got '${process.env.BENCH_IMPORT_ROWS}'`);
  return rows;
}

function itemsCsv(rows: number): string {
  const run = randomUUID().slice(0, 8);
  const lines = ['sku,name,unit,category,reorderPoint'];
  // Short cells keep 100,000 rows (about 3 MB) under the 4 MiB upload limit.
  for (let index = 1; index <= rows; index += 1) lines.push(`B${run}-${index},Item ${index},ea,b,${index % 100}`);
  return lines.join('\n') + '\n';
}

/** An in-memory `npm start` on free ports, as the test suites start it. */
async function startStack(): Promise<{ baseUrl: string; key: string; stop(): Promise<void> }> {
  const stateDir = mkdtempSync(join(tmpdir(), 'customer-api-bench-'));
  const readyFile = join(stateDir, 'ready.json');
  let output = '';
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'local/start.ts'], {
    env: { ...process.env, PORT: '0', LOCAL_STATE_DIR: stateDir, LOCAL_IN_MEMORY: '1', LOCAL_FRESH: '1', LOCAL_READY_FILE: readyFile, LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await Promise.race([exited, sleep(10_000)]);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    rmSync(stateDir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (existsSync(readyFile)) {
      try {
        const info = JSON.parse(readFileSync(readyFile, 'utf8')) as { baseUrl: string; devKey: string };
        return { baseUrl: info.baseUrl, key: info.devKey, stop };
      } catch {
        // Seen before it was fully written: read again.
      }
    }
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`npm start did not get ready:\n${output}`);
    }
    await sleep(100);
  }
}

async function getJob(baseUrl: string, key: string, id: string): Promise<Job> {
  const response = await fetch(`${baseUrl}/v1/imports/jobs/${id}`, { headers: { authorization: `Bearer ${key}` } });
  if (response.status !== 200) throw new Error(`GET job: ${response.status} ${await response.text()}`);
  return (await response.json()) as Job;
}

async function main(): Promise<void> {
  const rows = rowCount();
  const external = process.env.BENCH_BASE_URL && process.env.BENCH_API_KEY ? { baseUrl: process.env.BENCH_BASE_URL, key: process.env.BENCH_API_KEY } : undefined;
  const stack = external ? { ...external, stop: async () => undefined } : await startStack();
  try {
    const csv = itemsCsv(rows);
    const form = new FormData();
    form.append('kind', 'items');
    form.append('duplicateStrategy', 'fail');
    form.append('file', new Blob([csv], { type: 'text/csv' }), 'bench.csv');

    const started = performance.now();
    const response = await fetch(`${stack.baseUrl}/v1/imports/jobs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${stack.key}`, 'idempotency-key': randomUUID() },
      body: form,
    });
    const acceptedMs = performance.now() - started;
    if (response.status !== 202) throw new Error(`POST /v1/imports/jobs: ${response.status} ${await response.text()}`);
    const { id } = (await response.json()) as Job;
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
