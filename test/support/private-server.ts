import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { inject } from 'vitest';

/**
 * `npm start` of a suite's own (local/start.ts), apart from the run-wide stack of
 * test/support/global-stack.ts: a fresh, in-memory state directory, free ports and the settings
 * the suite passes (e.g. LOCAL_SWEEP_SECONDS, which would disturb every other suite on the shared
 * stack). Its own process group, so `stop` ends the whole stack it started.
 */

export interface PrivateServer {
  baseUrl: string;
  /** The development key `npm start` prints (every scope). */
  devKey: string;
  /** What the server printed so far (for failure messages). */
  output(): string;
  /** Calls the server with the development key. */
  call(path: string, init?: RequestInit): Promise<Response>;
  stop(): Promise<void>;
}

/** The test process carries the run-wide stack's settings (test/support/stack-env.ts); the child must not. */
function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(inject('stack').env)) delete env[name];
  return { ...env, PORT: '0', LOG_LEVEL: 'silent', LOCAL_IN_MEMORY: '1', LOCAL_FRESH: '1', ...extra };
}

/** Signals the child's whole process group (DynamoDB Local and the rest with it) and waits for it to exit, at most 15 s. */
export async function killGroup(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  const exited = new Promise((resolveExit) => child.once('exit', resolveExit));
  try {
    process.kill(-child.pid, signal);
  } catch {
    return;
  }
  await Promise.race([exited, sleep(15_000)]);
}

export async function startPrivateServer(settings: Record<string, string> = {}): Promise<PrivateServer> {
  const stateDir = mkdtempSync(join(tmpdir(), 'customer-api-private-'));
  const readyFile = join(stateDir, 'ready.json');
  let output = '';
  const child = spawn(process.execPath, ['--import', 'tsx', 'local/start.ts'], {
    env: childEnv({ LOCAL_STATE_DIR: stateDir, LOCAL_READY_FILE: readyFile, ...settings }),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const stop = async () => {
    await killGroup(child, 'SIGTERM');
    await killGroup(child, 'SIGKILL');
    rmSync(stateDir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}:\n${output}`);
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`npm start was not ready within 90 s:\n${output}`);
    }
    if (existsSync(readyFile)) {
      try {
        const { baseUrl, devKey } = JSON.parse(readFileSync(readyFile, 'utf8')) as { baseUrl: string; devKey: string };
        const call = (path: string, init: RequestInit = {}) =>
          fetch(`${baseUrl}${path}`, { ...init, headers: { authorization: `Bearer ${devKey}`, ...(init.headers as Record<string, string> | undefined) } });
        return { baseUrl, devKey, output: () => output, call, stop };
      } catch {
        // Seen before it was fully written: read again.
      }
    }
    await sleep(100);
  }
}
