import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** What the import benchmarks share: an in-memory `npm start`, valid item files, job polling. */

export interface Job {
  id: string;
  status: string;
  submittedAt: string;
  startedAt: string | null;
  completedAt: string | null;
  counts: Record<string, number>;
  failure: { code: string; message: string } | null;
}

export const FINISHED = new Set(['succeeded', 'completed_with_errors', 'failed']);

export function rowCount(): number {
  const rows = Number(process.env.BENCH_IMPORT_ROWS ?? 10_000);
  if (!Number.isInteger(rows) || rows < 1 || rows > 100_000) throw new Error(`BENCH_IMPORT_ROWS must be 1..100000, got '${process.env.BENCH_IMPORT_ROWS}'`);
  return rows;
}

export function itemsCsv(rows: number): string {
  const run = randomUUID().slice(0, 8);
  const lines = ['sku,name,unit,category,reorderPoint'];
  // Short cells keep 100,000 rows (about 3 MB) under the 4 MiB upload limit.
  for (let index = 1; index <= rows; index += 1) lines.push(`B${run}-${index},Item ${index},ea,b,${index % 100}`);
  return lines.join('\n') + '\n';
}

export interface LocalStack {
  baseUrl: string;
  key: string;
  /** The AWS endpoints and resource names of the stack, for in-process clients. */
  env: Record<string, string>;
  /** The DynamoDB write actions the stack's process committed so far (local/write-actions-file.ts), read after its next flush. */
  writeActions(): Promise<number>;
  /** The write capacity units AWS would bill for the same requests (local/write-units.ts), in all and by operation, read after its next flush. */
  writeUnits(): Promise<{ total: number; byOperation: Record<string, number> }>;
  /** The DynamoDB requests it made so far, by operation (reads included), read after its next flush. */
  requestCounts(): Promise<Record<string, number>>;
  stop(): Promise<void>;
}

/** An in-memory `npm start` on free ports, as the test suites start it. */
export async function startStack(): Promise<LocalStack> {
  const stateDir = mkdtempSync(join(tmpdir(), 'customer-api-bench-'));
  const readyFile = join(stateDir, 'ready.json');
  const writeActionsFile = join(stateDir, 'write-actions.json');
  let output = '';
  // BENCH_STACK_NODE_ARGS: Node options for the stack's process only (`--cpu-prof --cpu-prof-dir=…`, which NODE_OPTIONS refuses).
  const nodeArgs = (process.env.BENCH_STACK_NODE_ARGS ?? '').split(' ').filter((arg) => arg.length > 0);
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', 'local/start.ts'], {
    env: {
      ...process.env,
      PORT: '0',
      LOCAL_STATE_DIR: stateDir,
      LOCAL_IN_MEMORY: '1',
      LOCAL_FRESH: '1',
      LOCAL_READY_FILE: readyFile,
      LOCAL_WRITE_ACTIONS_FILE: writeActionsFile,
      LOG_LEVEL: 'silent',
      WEBHOOK_ALLOW_LOOPBACK: '1',
    },
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
        const info = JSON.parse(readFileSync(readyFile, 'utf8')) as { baseUrl: string; devKey: string; env: Record<string, string> };
        const writeActions = async () => {
          // The file is rewritten every 200 ms while writes come: wait for the writes just made.
          await sleep(500);
          return (JSON.parse(readFileSync(writeActionsFile, 'utf8')) as { writeActions: number }).writeActions;
        };
        const writeUnits = async () => {
          await sleep(500);
          const totals = JSON.parse(readFileSync(writeActionsFile, 'utf8')) as { writeUnits: number; writeUnitsByOperation: Record<string, number> };
          return { total: totals.writeUnits, byOperation: totals.writeUnitsByOperation };
        };
        const requestCounts = async () => {
          await sleep(500);
          return (JSON.parse(readFileSync(writeActionsFile, 'utf8')) as { requests: Record<string, number> }).requests;
        };
        return { baseUrl: info.baseUrl, key: info.devKey, env: info.env, writeActions, writeUnits, requestCounts, stop };
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

export async function getJob(baseUrl: string, key: string, id: string): Promise<Job> {
  const response = await fetch(`${baseUrl}/v1/imports/jobs/${id}`, { headers: { authorization: `Bearer ${key}` } });
  if (response.status !== 200) throw new Error(`GET job: ${response.status} ${await response.text()}`);
  return (await response.json()) as Job;
}

/** POSTs an items file (duplicateStrategy `fail`); when it was sent and when the 202 came back. */
export function submitItemsFile(stack: { baseUrl: string }, key: string, csv: string): Promise<{ id: string; submittedAt: number; acceptedAt: number }> {
  return submitFile(stack, key, 'items', csv);
}

/** POSTs a file of any kind (duplicateStrategy `fail`, a dry run if asked); when it was sent and when the 202 came back. */
export async function submitFile(
  stack: { baseUrl: string },
  key: string,
  kind: string,
  csv: string,
  options: { dryRun?: boolean } = {},
): Promise<{ id: string; submittedAt: number; acceptedAt: number }> {
  const form = new FormData();
  form.append('kind', kind);
  form.append('duplicateStrategy', 'fail');
  if (options.dryRun) form.append('dryRun', 'true');
  form.append('file', new Blob([csv], { type: 'text/csv' }), 'bench.csv');
  const submittedAt = performance.now();
  const response = await fetch(`${stack.baseUrl}/v1/imports/jobs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'idempotency-key': randomUUID() },
    body: form,
  });
  if (response.status !== 202) throw new Error(`POST /v1/imports/jobs: ${response.status} ${await response.text()}`);
  return { id: ((await response.json()) as Job).id, submittedAt, acceptedAt: performance.now() };
}
