import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Context } from 'aws-lambda';
import { lambdaContext } from './lambda-event.ts';
import { invokeWithTimeout } from './load-handler.ts';

/**
 * The local stand-in for Lambda's event source mappings, whatever the source: `concurrency`
 * independent loops each receive a batch from the source, invoke the worker's handler with the
 * event the source builds, and settle the batch from the handler's partial batch response
 * (`batchItemFailures`): what succeeded is acknowledged, what failed is handed back to the
 * source for redelivery. As with the mapping's MaximumConcurrency, a slow batch holds one loop
 * only: the other loops keep receiving and processing meanwhile.
 *
 * A source (local/sqs-poller.ts for SQS; a DynamoDB Streams source plugs in the same way) says
 * how to receive, how a record is named in `batchItemFailures`, and what acknowledging and
 * failing mean for it (SQS: delete, or make visible again after the retry delay).
 */

export interface EventSource<TRecord, TEvent> {
  /** What a record is called in logs, singular and plural, e.g. `message` / `messages`. */
  readonly noun: readonly [string, string];
  /** Waits up to the source's poll time for at most `maxRecords`; [] when there are none. */
  receive(maxRecords: number): Promise<TRecord[]>;
  /** The event the handler receives for a batch, as Lambda builds it for this source. */
  toEvent(records: readonly TRecord[]): TEvent;
  /** The `itemIdentifier` a handler reports a record's failure with. */
  itemIdentifier(record: TRecord): string;
  /** The records are done: never delivered again. */
  ack(records: readonly TRecord[]): Promise<void>;
  /** The records failed: deliver them again later. */
  fail(records: readonly TRecord[]): Promise<void>;
  /** Received while stopping, never handed to the handler: deliver them again at once. */
  release(records: readonly TRecord[]): Promise<void>;
  /** Called once every loop has stopped. */
  close(): void;
}

export type BatchHandler<TEvent> = (event: TEvent, context: Context) => Promise<unknown>;

export interface EventSourcePollerOptions<TRecord, TEvent> {
  /** Used in logs and as the Lambda context's function name, e.g. the worker id. */
  name: string;
  source: EventSource<TRecord, TEvent>;
  /** The handler; called per batch, so it should cache (load-handler.ts does). */
  loadHandler: () => Promise<BatchHandler<TEvent>>;
  /** The function timeout: a batch still running after it counts as failed, as on Lambda. */
  timeoutSeconds: number;
  batchSize: number;
  /** Batches processed in parallel, each by its own loop. */
  concurrency: number;
  /** Failures and polling errors. Default: console.error. */
  log?: (line: string) => void;
}

export interface EventSourcePoller {
  /** Stops receiving, lets in-flight batches finish (bounded by the worker timeout), then resolves. */
  stop(): Promise<void>;
}

const MAX_BACKOFF_MS = 30_000;

const errorText = (error: unknown) => (error instanceof Error ? `${error.name}: ${error.message}` : String(error));

/**
 * Lambda's reading of a partial batch response: nothing (null/undefined/{}), or an empty or null
 * `batchItemFailures` = all succeeded; a malformed response, or an itemIdentifier that is empty,
 * null or not a record of the batch = the whole batch failed. Returns the failed identifiers.
 */
export function failedItemIds(response: unknown, batchIds: readonly string[]): { ids: Set<string>; wholeBatch?: string } {
  const all = (reason: string) => ({ ids: new Set(batchIds), wholeBatch: reason });
  if (response === undefined || response === null) return { ids: new Set() };
  if (typeof response !== 'object' || Array.isArray(response)) return all('the handler returned something other than a batch response');
  const failures = (response as { batchItemFailures?: unknown }).batchItemFailures;
  if (failures === undefined || failures === null) return { ids: new Set() };
  if (!Array.isArray(failures)) return all('batchItemFailures is not an array');
  const known = new Set(batchIds);
  const ids = new Set<string>();
  for (const failure of failures as unknown[]) {
    const id = (failure as { itemIdentifier?: unknown } | null)?.itemIdentifier;
    if (typeof id !== 'string' || id === '' || !known.has(id)) {
      return all(`batchItemFailures names ${JSON.stringify(id)}, which is not a record of the batch`);
    }
    ids.add(id);
  }
  return { ids };
}

export function startEventSourcePoller<TRecord, TEvent>(options: EventSourcePollerOptions<TRecord, TEvent>): EventSourcePoller {
  const { source, name } = options;
  const log = options.log ?? ((line: string) => console.error(line));
  const say = (line: string) => log(`[${name}] ${line}`);
  const [one, many] = source.noun;
  if (!Number.isInteger(options.concurrency) || options.concurrency < 1) throw new Error(`concurrency must be a positive integer, got ${options.concurrency}`);
  const timeoutMs = options.timeoutSeconds * 1000;
  const stopSignal = new AbortController();
  let stopping = false;

  async function processBatch(records: readonly TRecord[]): Promise<void> {
    const batchIds = records.map((record) => source.itemIdentifier(record));
    let failed: Set<string>;
    try {
      const handler = await options.loadHandler();
      const response = await invokeWithTimeout(handler, source.toEvent(records), lambdaContext(name, randomUUID(), timeoutMs), timeoutMs);
      const outcome = failedItemIds(response, batchIds);
      if (outcome.wholeBatch) say(`whole batch of ${batchIds.length} failed: ${outcome.wholeBatch}`);
      else if (outcome.ids.size > 0) say(`${outcome.ids.size} of ${batchIds.length} ${many} failed: ${[...outcome.ids].join(', ')}`);
      failed = outcome.ids;
    } catch (error) {
      // Like Lambda: an error (or timeout) fails the whole batch and nothing is acknowledged.
      say(`handler failed the whole batch of ${batchIds.length}: ${errorText(error)}`);
      failed = new Set(batchIds);
    }
    const isFailed = (record: TRecord) => failed.has(source.itemIdentifier(record));
    const succeeded = records.filter((record) => !isFailed(record));
    // An empty acknowledgement would tell a source that something succeeded (a stream source resets its retry count).
    if (succeeded.length > 0) await source.ack(succeeded);
    const retry = records.filter(isFailed);
    if (retry.length > 0) await source.fail(retry);
  }

  async function pollLoop(): Promise<void> {
    let consecutiveErrors = 0;
    while (!stopping) {
      let records: TRecord[];
      try {
        records = await source.receive(options.batchSize);
        consecutiveErrors = 0;
      } catch (error) {
        if (stopping) break;
        consecutiveErrors += 1;
        const backoffMs = Math.min(MAX_BACKOFF_MS, 250 * 2 ** (consecutiveErrors - 1));
        say(`receiving failed (${errorText(error)}); retrying in ${backoffMs} ms`);
        await sleep(backoffMs, undefined, { signal: stopSignal.signal }).catch(() => undefined);
        continue;
      }
      if (records.length === 0) continue;
      try {
        if (stopping) {
          await source.release(records);
          break;
        }
        await processBatch(records);
      } catch (error) {
        // Settling failed: the source redelivers on its own terms (SQS: after the visibility timeout).
        say(`settling a batch of ${records.length} ${records.length === 1 ? one : many} failed: ${errorText(error)}`);
      }
    }
  }

  const loops = Array.from({ length: options.concurrency }, () => pollLoop().catch((error: unknown) => say(`poller stopped by a bug: ${errorText(error)}`)));
  let stopped: Promise<void> | undefined;
  return {
    stop() {
      stopping = true;
      stopSignal.abort();
      stopped ??= Promise.all(loops).then(() => source.close());
      return stopped;
    },
  };
}
