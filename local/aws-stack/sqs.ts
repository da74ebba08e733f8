import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { buildApp } from 'fauxqs';
import { SqsJournal, type FauxqsStore } from './sqs-journal.ts';

/**
 * fauxqs for SQS. Its queues live in memory; with a state directory every message is also
 * journaled there and restored at the next start (sqs-journal.ts), so a queue keeps what it
 * holds across restarts and kills, as SQS does. Two things `startFauxqs()` (1.9.x) gets wrong for us:
 * - it always listens on 0.0.0.0 (its `host` option does not change the bind address);
 * - its queue URLs are `http://sqs.<region>.<host>:<port>/000000000000/<name>`, host defaulting
 *   to `localhost`. `*.localhost` does not resolve here, and SDK v3 sends requests to the QueueUrl's
 *   host unless the client has an explicit `endpoint` (AWS_ENDPOINT_URL_SQS alone does not count).
 * So we build the app ourselves, listen on 127.0.0.1, and give it an SqsStore with `host = ''`,
 * which makes CreateQueue use the request's Host header: `http://127.0.0.1:<port>/000000000000/<name>`,
 * the same origin as the endpoint. fauxqs resolves a QueueUrl by exact string match, so clients
 * must use these URLs verbatim.
 */
export interface LocalSqs {
  endpoint: string;
  port: number;
  stop(): Promise<void>;
}

type BuildAppOptions = NonNullable<Parameters<typeof buildApp>[0]>;

/** fauxqs does not export SqsStore from its entry point; load it from the installed package. */
type SqsStoreInstance = FauxqsStore & { host: string };

async function loadSqsStore(): Promise<new () => SqsStoreInstance> {
  for (let dir = dirname(fileURLToPath(import.meta.url)); ; dir = dirname(dir)) {
    const file = join(dir, 'node_modules', 'fauxqs', 'dist', 'sqs', 'sqsStore.js');
    if (existsSync(file)) {
      const module = (await import(pathToFileURL(file).href)) as { SqsStore?: new () => SqsStoreInstance };
      if (typeof module.SqsStore !== 'function') break;
      return module.SqsStore;
    }
    if (dirname(dir) === dir) break;
  }
  throw new Error('fauxqs/dist/sqs/sqsStore.js (SqsStore) not found: the local stack expects fauxqs 1.9.x');
}

export interface SqsOptions {
  port: number;
  /** Journal the messages under `<stateDir>/sqs/` and restore them; undefined = memory only (tests). */
  stateDir?: string;
}

export async function startSqs(options: SqsOptions): Promise<LocalSqs> {
  const SqsStore = await loadSqsStore();
  const sqsStore = new SqsStore();
  sqsStore.host = '';
  const journal = options.stateDir === undefined ? undefined : new SqsJournal(options.stateDir);
  journal?.attach(sqsStore);
  // Only sqsStore is given; buildApp creates the SNS and S3 stores itself.
  const app = buildApp({ logger: false, stores: { sqsStore } as unknown as BuildAppOptions['stores'] });
  await app.listen({ port: options.port, host: '127.0.0.1' });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('fauxqs did not report a TCP address');
  let stopping: Promise<void> | undefined;
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    port: address.port,
    stop: () => (stopping ??= app.close().then(() => journal?.close())),
  };
}
