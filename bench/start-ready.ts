import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * Time from launching `npm start`'s entry on a fresh, persistent state directory to its ready
 * file (the local AWS stack up, tables and queues created, HTTP server listening), then Ctrl-C.
 * Runs BENCH_START_RUNS times (default 5) and prints the median and every sample:
 *   npx tsx bench/start-ready.ts
 */

const RUNS = Number(process.env.BENCH_START_RUNS ?? 5);

async function once(): Promise<number> {
  const stateDir = mkdtempSync(join(tmpdir(), 'customer-api-start-'));
  const readyFile = join(stateDir, 'ready.json');
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', 'local/start.ts'], {
    env: { ...process.env, PORT: '0', LOCAL_STATE_DIR: stateDir, LOCAL_READY_FILE: readyFile, LOG_LEVEL: 'silent' },
    stdio: 'ignore',
  });
  try {
    while (!existsSync(readyFile)) {
      if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}`);
      if (performance.now() - started > 90_000) throw new Error('npm start was not ready within 90 s');
      await sleep(10);
    }
    return performance.now() - started;
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGINT');
    await exited;
    rmSync(stateDir, { recursive: true, force: true });
  }
}

const samples: number[] = [];
for (let run = 0; run < RUNS; run += 1) samples.push(await once());
const sorted = [...samples].sort((a, b) => a - b);
console.log(`npm start, fresh state dir, ready after: median ${(sorted[Math.floor(sorted.length / 2)]! / 1000).toFixed(2)} s`);
console.log(`  samples (s): ${samples.map((ms) => (ms / 1000).toFixed(2)).join(', ')}`);
