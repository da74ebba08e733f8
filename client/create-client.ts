import createClient, { type Client } from 'openapi-fetch';
import { abortableSleep } from './http/sleep.ts';
import { createRetryingFetch, type RetryEvent } from './http/retrying-fetch.ts';
import { DEFAULT_RETRY_OPTIONS, type RetryOptions } from './http/retry-policy.ts';
import type { ClientMedia, ClientPaths, FetchLike, Sleep } from './types.ts';

export interface InventoryClientOptions {
  /** e.g. `http://127.0.0.1:3000` for `npm start`. */
  baseUrl: string;
  apiKey: string;
  /** The transport; globalThis.fetch by default. Wrap it to observe or fake requests. */
  fetch?: FetchLike;
  retry?: Partial<RetryOptions>;
  /** How every wait is taken: retries, import polling, the feed's idle delay. */
  sleep?: Sleep;
  random?: () => number;
  /** Keys for writes sent without one; crypto.randomUUID by default. */
  newIdempotencyKey?: () => string;
  onRetry?: (event: RetryEvent) => void;
}

export interface InventoryClient {
  /** The typed openapi-fetch client: `api.GET('/v1/boms/{id}', …)` answers `{ data, error, response }`. */
  readonly api: Client<ClientPaths, ClientMedia>;
  readonly sleep: Sleep;
}

/** A client of the customer API (docs/client.md#use). */
export function createInventoryClient(options: InventoryClientOptions): InventoryClient {
  const sleep = options.sleep ?? abortableSleep;
  const transport = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const api = createClient<ClientPaths, ClientMedia>({
    baseUrl: options.baseUrl,
    headers: { Authorization: `Bearer ${options.apiKey}` },
    fetch: createRetryingFetch({
      fetch: transport,
      retry: { ...DEFAULT_RETRY_OPTIONS, ...options.retry },
      sleep,
      random: options.random ?? Math.random,
      newIdempotencyKey: options.newIdempotencyKey ?? (() => globalThis.crypto.randomUUID()),
      onRetry: options.onRetry,
    }),
  });
  return { api, sleep };
}
