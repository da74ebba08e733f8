import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * Files under the local state directory (`.local/`, git-ignored): the running server's lock and
 * runtime info (so the keys CLI can reach its stack), and the development key.
 */

export function stateDirectory(): string {
  return resolve(process.env.LOCAL_STATE_DIR ?? '.local');
}

export interface RuntimeInfo {
  pid: number;
  baseUrl: string;
  env: Record<string, string>;
}

export interface DevKey {
  key: string;
  keyId: string;
  organizationId: string;
}

const files = (dir: string) => ({
  runtime: join(dir, 'runtime.json'),
  devKey: join(dir, 'dev-key.json'),
});

export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readJson<T>(path: string): T | undefined {
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as T;
  } catch {
    return undefined;
  }
}

/** Runtime info of a live `npm start` using this state directory, if any. */
export function runningServer(dir: string): RuntimeInfo | undefined {
  const info = readJson<RuntimeInfo>(files(dir).runtime);
  return info && isProcessAlive(info.pid) ? info : undefined;
}

export function writeRuntimeInfo(dir: string, info: RuntimeInfo): void {
  mkdirSync(dir, { recursive: true });
  // Exclusive create: of two servers racing to start, only one wins.
  writeFileSync(files(dir).runtime, JSON.stringify(info, null, 2), { mode: 0o600, flag: 'wx' });
}

export function removeRuntimeInfo(dir: string): void {
  rmSync(files(dir).runtime, { force: true });
}

/** Clears a lock left by a server that died without cleaning up. */
export function clearStaleRuntimeInfo(dir: string): void {
  if (existsSync(files(dir).runtime) && !runningServer(dir)) removeRuntimeInfo(dir);
}

export function readDevKey(dir: string): DevKey | undefined {
  return readJson<DevKey>(files(dir).devKey);
}

export function writeDevKey(dir: string, devKey: DevKey): void {
  writeFileSync(files(dir).devKey, JSON.stringify(devKey, null, 2), { mode: 0o600 });
}

/** LOCAL_FRESH=1: forget all stored data, keep the cached DynamoDB Local copy. */
export function wipeState(dir: string): void {
  for (const name of ['dynamodb', 's3', 'sqs', 'streams', 'dev-key.json']) rmSync(join(dir, name), { recursive: true, force: true });
}

/** The local cursor-signing key: generated once per state directory, so cursors survive restarts. */
export function localCursorSecret(dir: string): string {
  const path = join(dir, 'cursor-secret');
  if (existsSync(path)) return readFileSync(path, 'utf8').trim();
  mkdirSync(dir, { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  writeFileSync(path, secret, { mode: 0o600 });
  return secret;
}

/** Where the local stream poller keeps its position in a table's stream (local/stream-poller.ts). */
export function streamPositionFile(dir: string, workerId: string): string {
  return join(dir, 'streams', `${workerId}.json`);
}

/**
 * The local data key that seals webhook signing secrets (lib/webhooks/store/webhook-secrets.ts; a KMS key
 * on AWS): generated once per state directory, readable by its owner only.
 */
export function localWebhookKeyFile(dir: string): string {
  const path = join(dir, 'webhook-secrets.key');
  if (!existsSync(path)) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(path, randomBytes(32).toString('base64'), { mode: 0o600 });
  }
  return path;
}
