import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';

/**
 * Starts `npm start`'s entry point once per test run on a throwaway, in-memory state directory
 * and free ports; integration tests use its AWS stack, end-to-end tests its HTTP server.
 */

export interface StackInfo {
  baseUrl: string;
  env: Record<string, string>;
  devKey: string;
  stateDir: string;
}

declare module 'vitest' {
  export interface ProvidedContext {
    stack: StackInfo;
  }
}

/**
 * The server caches looked-up keys (docs/operations.md#api-key-cache); tests run it with a short
 * period so that a revocation can be watched taking effect.
 */
export const TEST_API_KEY_CACHE_SECONDS = 2;

/**
 * Failed authentications per source and window the server allows (docs/api-guide.md "Failed
 * authentications"). The suites' own 401s all come from 127.0.0.1, and the route matrix alone
 * sends six per route (about 240), so the test server runs with more than the default 100;
 * test/e2e/auth-flood.test.ts floods from another address against this same limit.
 */
export const TEST_AUTH_FAILURE_LIMIT = 400;

/** The wait after a first failed webhook attempt on the test stack (the schedule's is 5 s). */
export const TEST_WEBHOOK_FIRST_RETRY_SECONDS = 1;

/**
 * Fixed DNS answers of the test stack's delivery worker (WEBHOOK_TEST_RESOLVE, docs/webhooks.md
 * "Local development"): host names whose deliveries must be refused at the attempt. `mixed` has a
 * public first answer, so only a check of every address refuses it; `loopbackAlias` is loopback
 * but not the 127.0.0.1 that WEBHOOK_ALLOW_LOOPBACK admits. Every other host goes to DNS.
 */
export const TEST_WEBHOOK_RESOLVE = {
  private: { host: 'private.webhook-test.example.com', addresses: ['10.0.0.5'] },
  mixed: { host: 'mixed.webhook-test.example.com', addresses: ['93.184.215.14', '127.0.0.2'] },
  loopbackAlias: { host: 'loopback-alias.webhook-test.example.com', addresses: ['127.0.0.2'] },
} as const;

let server: ChildProcess | undefined;
let stateDir: string | undefined;

async function waitForReadyFile(path: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (!existsSync(path)) {
    if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}:\n${output()}`);
    if (Date.now() > deadline) throw new Error(`npm start was not ready within 90 s:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function setup(project: TestProject): Promise<void> {
  stateDir = mkdtempSync(join(tmpdir(), 'customer-api-test-'));
  const readyFile = join(stateDir, 'ready.json');
  let output = '';
  server = spawn(process.execPath, ['--import', 'tsx', 'local/start.ts'], {
    env: {
      ...process.env,
      PORT: '0',
      LOCAL_STATE_DIR: stateDir,
      LOCAL_IN_MEMORY: '1',
      LOCAL_FRESH: '1',
      LOCAL_READY_FILE: readyFile,
      LOG_LEVEL: 'silent',
      API_KEY_CACHE_SECONDS: String(TEST_API_KEY_CACHE_SECONDS),
      AUTH_FAILURE_LIMIT_PER_MINUTE: String(TEST_AUTH_FAILURE_LIMIT),
      WEBHOOK_ALLOW_LOOPBACK: '1',
      WEBHOOK_FIRST_RETRY_SECONDS: String(TEST_WEBHOOK_FIRST_RETRY_SECONDS),
      WEBHOOK_TEST_RESOLVE: JSON.stringify(Object.fromEntries(Object.values(TEST_WEBHOOK_RESOLVE).map(({ host, addresses }) => [host, addresses]))),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  server.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await waitForReadyFile(readyFile, server, () => output);
  // The file may be seen before it is fully written; read until it parses.
  let info: { baseUrl: string; env: Record<string, string>; devKey: string } | undefined;
  while (!info) {
    try {
      info = JSON.parse(readFileSync(readyFile, 'utf8'));
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  project.provide('stack', { baseUrl: info.baseUrl, env: info.env, devKey: info.devKey, stateDir });
}

export async function teardown(): Promise<void> {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server?.once('exit', resolve));
    server.kill('SIGTERM');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    if (server.exitCode === null) server.kill('SIGKILL');
  }
  if (stateDir) rmSync(stateDir, { recursive: true, force: true });
}
