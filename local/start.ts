import { writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { QUEUES, TABLES } from '../lib/platform/storage/tables.ts';
import { startAwsStack, type AwsStack } from './aws-stack/index.ts';
import {
  clearStaleRuntimeInfo,
  localCursorSecret,
  localWebhookKeyFile,
  removeRuntimeInfo,
  runningServer,
  stateDirectory,
  streamPositionFile,
  wipeState,
  writeRuntimeInfo,
} from './state.ts';

/**
 * `npm start`: the embedded AWS stack (DynamoDB Local, s3rver, fauxqs) plus an HTTP server that
 * runs the deployable Lambda handlers, an event source poller per queue worker and a timer per
 * scheduled worker (lib/app/workers.ts). Queue messages are journaled under the state directory and
 * survive a restart, even a `kill -9` (docs/operations.md "Local runtime"). Settings: PORT (3000), LOCAL_STATE_DIR (.local), LOCAL_FRESH=1 (start
 * empty), LOCAL_IN_MEMORY=1 (nothing persisted; tests), LOCAL_READY_FILE (write the runtime info
 * there once ready; tests), LOCAL_SWEEP_SECONDS (period of the scheduled workers instead of
 * theirs), LOCAL_RETRY_DELAY_SECONDS (how long a failed queue message stays hidden, default 2),
 * WEBHOOK_ALLOW_LOOPBACK=1 (webhook endpoints on 127.0.0.1/::1 over http),
 * WEBHOOK_FIRST_RETRY_SECONDS (the wait after a first failed webhook attempt) and
 * WEBHOOK_TEST_RESOLVE (fixed DNS answers of the delivery worker, JSON; docs/webhooks.md).
 */

/** Background workers stop before the AWS stack; a handler stuck longer than this is abandoned. */
const WORKER_STOP_TIMEOUT_MS = 5_000;

function fail(message: string): never {
  console.error(`npm start: ${message}`);
  process.exit(1);
}

async function main(): Promise<void> {
  const started = Date.now();
  const stateDir = stateDirectory();
  const port = Number(process.env.PORT ?? 3000);
  if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`PORT must be a port number, got '${process.env.PORT}'.`);

  const other = runningServer(stateDir);
  if (other) fail(`another 'npm start' (pid ${other.pid}) is already serving ${other.baseUrl} from ${stateDir}. Stop it first (Ctrl-C in its terminal).`);
  clearStaleRuntimeInfo(stateDir);
  if (process.env.LOCAL_FRESH === '1') wipeState(stateDir);

  let stack: AwsStack | undefined;
  const workers: { stop(): Promise<void> }[] = [];
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    removeRuntimeInfo(stateDir);
    // Pollers and timers first (in-flight batches finish), then the stack they talk to.
    await Promise.race([
      Promise.allSettled(workers.map((worker) => worker.stop())),
      new Promise((resolveWait) => setTimeout(resolveWait, WORKER_STOP_TIMEOUT_MS).unref()),
    ]);
    await stack?.stop();
    process.exit(code);
  };
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));

  try {
    stack = await startAwsStack({ stateDir, inMemory: process.env.LOCAL_IN_MEMORY === '1' });
  } catch (error) {
    fail((error as Error).message);
  }
  const localEnv = { ...stack.env, CURSOR_SECRET: localCursorSecret(stateDir), WEBHOOK_SECRETS_KEY_FILE: localWebhookKeyFile(stateDir) };
  Object.assign(process.env, localEnv);
  if (process.env.LOCAL_WRITE_ACTIONS_FILE) {
    const [{ countWriteActionsToFile }, { dynamoClient }] = await Promise.all([
      import('./write-actions-file.ts'),
      import('../lib/platform/aws/dynamodb-client.ts'),
    ]);
    countWriteActionsToFile(dynamoClient, process.env.LOCAL_WRITE_ACTIONS_FILE);
  }

  // Handlers read their settings at import (cold start), so import the server after the env is set.
  const { createLocalServer } = await import('./http-server.ts');
  const server = createLocalServer();
  await new Promise<void>((resolveListen, rejectListen) => {
    server.once('error', rejectListen);
    server.listen(port, '127.0.0.1', () => resolveListen());
  }).catch(async (error: NodeJS.ErrnoException) => {
    await stack?.stop();
    fail(error.code === 'EADDRINUSE' ? `port ${port} is in use; set PORT to another one.` : error.message);
  });
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  // Lambda's event source mapping and EventBridge rules, locally: handlers load lazily, after the env is set.
  try {
    workers.push(...(await startWorkers(stateDir)));
  } catch (error) {
    await stack.stop();
    fail((error as Error).message);
  }

  const { ensureDevKey, DEV_ORGANIZATION } = await import('./dev-key.ts');
  const devKey = await ensureDevKey(stateDir);
  const info = { pid: process.pid, baseUrl, env: localEnv };
  try {
    writeRuntimeInfo(stateDir, info);
  } catch {
    await stack.stop();
    fail(`another 'npm start' is starting from ${stateDir}.`);
  }
  if (process.env.LOCAL_READY_FILE) writeFileSync(process.env.LOCAL_READY_FILE, JSON.stringify({ ...info, devKey: devKey.key }));

  console.log(`Customer API ready at ${baseUrl} (started in ${Date.now() - started} ms; state in ${stateDir})`);
  if (devKey.created) {
    console.log(`Development API key for organization ${DEV_ORGANIZATION}, all scopes (shown once; also saved in ${stateDir}/dev-key.json):`);
    console.log(`  ${devKey.key}`);
  } else {
    console.log(`Development API key for ${DEV_ORGANIZATION}: see ${stateDir}/dev-key.json`);
  }
  console.log(`Try: curl -H "Authorization: Bearer <key>" "${baseUrl}/v1/barcodes?payload=hello" -o hello.svg`);
  console.log(`API reference: ${baseUrl}/docs (the OpenAPI document: ${baseUrl}/docs/openapi.json)`);
}

async function startWorkers(stateDir: string): Promise<{ stop(): Promise<void> }[]> {
  const { WORKERS } = await import('../lib/app/workers.ts');
  const { loadHandler } = await import('./load-handler.ts');
  const { startQueuePoller } = await import('./sqs-poller.ts');
  const { periodOverride, startScheduler } = await import('./scheduler.ts');
  const log = (line: string) => console.error(line);
  const retryDelaySeconds = periodOverride(process.env.LOCAL_RETRY_DELAY_SECONDS, 'LOCAL_RETRY_DELAY_SECONDS');
  const started: { stop(): Promise<void> }[] = [];
  for (const worker of WORKERS) {
    if (worker.trigger !== 'queue') continue;
    const queueUrl = process.env[QUEUES[worker.queue].envVar];
    if (!queueUrl) throw new Error(`no local queue URL for worker ${worker.id} (queue '${worker.queue}')`);
    started.push(
      startQueuePoller({
        worker,
        queueUrl,
        loadHandler,
        log,
        ...(retryDelaySeconds !== undefined ? { retryDelaySeconds: Math.ceil(retryDelaySeconds) } : {}),
      }),
    );
  }
  const { startStreamPoller } = await import('./stream-poller.ts');
  const { streamOnFailureDestination } = await import('./stream-on-failure.ts');
  for (const worker of WORKERS) {
    if (worker.trigger !== 'stream') continue;
    const tableName = process.env[TABLES[worker.table].envVar];
    if (!tableName) throw new Error(`no local table for worker ${worker.id} (table '${worker.table}')`);
    const onFailure = streamOnFailureDestination(worker);
    started.push(await startStreamPoller({ worker, tableName, positionFile: streamPositionFile(stateDir, worker.id), loadHandler, log, onFailure }));
  }
  const scheduled = WORKERS.filter((worker) => worker.trigger === 'schedule');
  if (scheduled.length > 0) {
    started.push(startScheduler({ workers: scheduled, loadHandler, log, everySeconds: periodOverride(process.env.LOCAL_SWEEP_SECONDS) }));
  }
  return started;
}

main().catch((error: unknown) => fail((error as Error).stack ?? String(error)));
