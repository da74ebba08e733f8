import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, inject, it } from 'vitest';
import type { EventEnvelope } from '../../lib/platform/events/types.ts';
import type { ImportJob } from '../../lib/imports/domain/job.ts';
import { importForm, itemsCsv } from '../support/imports.ts';
import { killGroup } from '../support/private-server.ts';

/**
 * Local queues keep SQS's promise (docs/operations.md "Local runtime"): `npm start` on its OWN
 * persistent state directory (not the run-wide in-memory stack), a 30,000-row items import,
 * SIGKILL of the whole process group mid-import (Node, DynamoDB Local, everything), `npm start`
 * again on the same state: the job's message comes back from the queue journal and the job ends
 * with exact counts, every item created once and no event twice in the feed.
 */

const ROWS = 30_000;
/** Killed once the job has committed at least this many rows (the report: row 3,072). */
const KILL_AFTER_ROWS = 3_000;
const FINISHED = ['succeeded', 'completed_with_errors', 'failed'];

interface Running {
  child: ChildProcess;
  baseUrl: string;
  devKey: string;
  output: () => string;
}

const stateDir = mkdtempSync(join(tmpdir(), 'customer-api-restart-'));
const running: ChildProcess[] = [];

/** The test process carries the run-wide stack's settings (test/support/stack-env.ts); the child must not. */
function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(inject('stack').env)) delete env[name];
  return { ...env, PORT: '0', LOCAL_STATE_DIR: stateDir, LOG_LEVEL: 'silent', ...extra };
}

async function startServer(run: string, extra: Record<string, string> = {}): Promise<Running> {
  const readyFile = join(stateDir, `ready-${run}.json`);
  let output = '';
  // detached: its own process group, so the whole stack can be killed at once, as a terminal would.
  const child = spawn(process.execPath, ['--import', 'tsx', 'local/start.ts'], {
    env: childEnv({ LOCAL_READY_FILE: readyFile, ...extra }),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  running.push(child);
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}:\n${output}`);
    if (Date.now() > deadline) throw new Error(`npm start was not ready within 90 s:\n${output}`);
    if (existsSync(readyFile)) {
      try {
        const info = JSON.parse(readFileSync(readyFile, 'utf8')) as { baseUrl: string; devKey: string };
        return { child, baseUrl: info.baseUrl, devKey: info.devKey, output: () => output };
      } catch {
        // Seen before it was fully written: read again.
      }
    }
    await sleep(100);
  }
}

async function getJob(server: Running, jobId: string): Promise<ImportJob> {
  const response = await fetch(`${server.baseUrl}/v1/imports/jobs/${jobId}`, { headers: { authorization: `Bearer ${server.devKey}` } });
  expect(response.status).toBe(200);
  return (await response.json()) as ImportJob;
}

async function waitForJob(server: Running, jobId: string, until: (job: ImportJob) => boolean, timeoutMs: number): Promise<ImportJob> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const job = await getJob(server, jobId);
    if (until(job)) return job;
    if (Date.now() > deadline)
      throw new Error(`job ${jobId} is ${job.status} at ${JSON.stringify(job.counts)} after ${timeoutMs} ms:\n${server.output().slice(-2_000)}`);
    await sleep(200);
  }
}

/** The organization's whole feed, following `nextCursor` to the tail. */
async function feed(server: Running): Promise<EventEnvelope[]> {
  const events: EventEnvelope[] = [];
  let cursor: string | undefined;
  for (;;) {
    const query = new URLSearchParams({ limit: '200', ...(cursor === undefined ? {} : { cursor }) });
    const response = await fetch(`${server.baseUrl}/v1/events?${query}`, { headers: { authorization: `Bearer ${server.devKey}` } });
    expect(response.status).toBe(200);
    const page = (await response.json()) as { data: EventEnvelope[]; page: { nextCursor: string } };
    events.push(...page.data);
    if (page.data.length === 0 && page.page.nextCursor === cursor) return events;
    cursor = page.page.nextCursor;
  }
}

afterAll(async () => {
  for (const child of running) await killGroup(child, 'SIGTERM');
  for (const child of running) await killGroup(child, 'SIGKILL');
  rmSync(stateDir, { recursive: true, force: true });
}, 60_000);

describe('npm start killed mid-import (kill -9 of the process group), then started again on the same state', () => {
  it(`finishes the ${ROWS.toLocaleString('en')}-row items job with exact counts and no event twice`, async () => {
    // Prepare
    const first = await startServer('first', { LOCAL_FRESH: '1' });
    const submitted = await fetch(`${first.baseUrl}/v1/imports/jobs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${first.devKey}`, 'idempotency-key': `restart-${Date.now()}` },
      body: importForm({ kind: 'items', file: itemsCsv(ROWS, 'KILL') }),
    });
    const accepted = (await submitted.json()) as ImportJob;
    expect(submitted.status, JSON.stringify(accepted)).toBe(202);
    const beforeKill = await waitForJob(first, accepted.id, (job) => job.counts.processedRows >= KILL_AFTER_ROWS || FINISHED.includes(job.status), 120_000);
    expect(beforeKill.status, 'the job must still be running when the stack is killed').toBe('processing');

    // Act
    await killGroup(first.child, 'SIGKILL');
    const second = await startServer('second');
    const finished = await waitForJob(second, accepted.id, (job) => FINISHED.includes(job.status), 240_000);
    const events = await feed(second);

    // Assess
    expect(beforeKill.counts.processedRows).toBeLessThan(ROWS);
    expect(finished.status).toBe('succeeded');
    expect(finished.counts).toEqual({ totalRows: ROWS, processedRows: ROWS, created: ROWS, updated: 0, skipped: 0, failed: 0 });
    const created = events.filter((event) => event.type === 'item.created');
    expect(created).toHaveLength(ROWS);
    expect(new Set(events.map((event) => event.id)).size).toBe(events.length);
    const skus = new Set(created.map((event) => (event.data.item as { sku: string }).sku));
    expect(skus.size).toBe(ROWS);
  }, 420_000);
});
