import { createServer, request as forward, Agent, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { REPO_ROOT } from '../infra/api-function.ts';
import { buildLambdaAsset } from '../infra/on-demand-modules.ts';

/**
 * A function's deployed asset (infra/on-demand-modules.ts: the bundle and its on-demand files)
 * imported into the bench process as one container of its own, under environment overrides of its
 * own, with its DynamoDB requests counted on the wire. Each import of an asset is a separate module
 * graph (the URL carries the variant), so two containers of the same function with different
 * settings (e.g. `RATE_LIMIT_LEASE_BLOCK_MAX=1`, the baseline of the token leases) run side by
 * side in one process against the same stack and can be measured in alternating batches.
 *
 * The overrides are in place while the bundle is imported (its cold start reads its configuration)
 * and during `warmup`, whose first request resolves everything the SDK reads lazily (the endpoint,
 * the credentials); afterwards process.env is as before.
 */

/** DynamoDB requests counted by a proxy in front of the stack's DynamoDB, by operation. */
export class DynamoDbRequestCounter {
  private readonly counts = new Map<string, number>();
  private server: Server | undefined;
  /** The proxy's URL, for `AWS_ENDPOINT_URL_DYNAMODB`. */
  endpoint = '';

  listening(server: Server, endpoint: string): void {
    this.server = server;
    this.endpoint = endpoint;
  }

  record(operation: string): void {
    this.counts.set(operation, (this.counts.get(operation) ?? 0) + 1);
  }

  /** Requests since the last reset, in total and by operation (`UpdateItem: 2, GetItem: 40`). */
  snapshot(): { total: number; operations: string } {
    const total = [...this.counts.values()].reduce((sum, count) => sum + count, 0);
    return { total, operations: [...this.counts].map(([operation, count]) => `${operation}: ${count}`).join(', ') };
  }

  reset(): void {
    this.counts.clear();
  }

  close(): Promise<void> {
    return new Promise((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** A counting HTTP proxy to `upstream` (DynamoDB Local is plain HTTP; the SDK names each operation in `x-amz-target`). */
async function countingProxy(upstream: string): Promise<DynamoDbRequestCounter> {
  const target = new URL(upstream);
  const agent = new Agent({ keepAlive: true });
  const counter = new DynamoDbRequestCounter();
  const server = createServer((incoming, outgoing) => {
    const operation =
      String(incoming.headers['x-amz-target'] ?? 'unknown')
        .split('.')
        .pop() ?? 'unknown';
    counter.record(operation);
    const proxied = forward(
      { host: target.hostname, port: target.port, method: incoming.method, path: incoming.url, headers: incoming.headers, agent },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    proxied.on('error', (error) => outgoing.destroy(error));
    incoming.pipe(proxied);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  counter.listening(server, `http://127.0.0.1:${port}`);
  return counter;
}

export interface BundledHandler<H> {
  handler: H;
  requests: DynamoDbRequestCounter;
  close(): Promise<void>;
}

/**
 * Builds `entry`'s asset into `directory` (once per directory: variants share it) and imports it
 * as the container `variant`, with `env` on top of process.env, counting its DynamoDB requests.
 */
export async function importBundledHandler<H>(
  entry: string,
  options: { directory: string; variant: string; env?: Record<string, string>; warmup: (handler: H) => Promise<void> },
): Promise<BundledHandler<H>> {
  const entryFile = await assetOf(entry, options.directory);
  const dynamodb = process.env.AWS_ENDPOINT_URL_DYNAMODB;
  if (!dynamodb) throw new Error('AWS_ENDPOINT_URL_DYNAMODB is not set: start the bench stack first');
  const requests = await countingProxy(dynamodb);
  const overrides: Record<string, string> = { ...options.env, AWS_ENDPOINT_URL_DYNAMODB: requests.endpoint };
  const saved = Object.fromEntries(Object.keys(overrides).map((name) => [name, process.env[name]]));
  Object.assign(process.env, overrides);
  try {
    const url = `${pathToFileURL(entryFile).href}?container=${encodeURIComponent(options.variant)}`;
    const { handler } = (await import(url)) as { handler: H };
    await options.warmup(handler);
    requests.reset();
    return { handler, requests, close: () => requests.close() };
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

const built = new Map<string, Promise<string>>();

function assetOf(entry: string, directory: string): Promise<string> {
  const target = join(directory, entry.replace(/[/.]/g, '-'));
  let asset = built.get(target);
  if (!asset) {
    asset = buildLambdaAsset(join(REPO_ROOT, entry), target).then((written) => join(target, written.entry.name));
    built.set(target, asset);
  }
  return asset;
}
