import { ApiNetworkError } from '../errors/network-error.ts';
import type { FetchLike, Sleep } from '../types.ts';
import { withIdempotencyKey } from './idempotency-key.ts';
import { retryAfterMs } from './retry-after.ts';
import { retryDelayMs, retryReasonOf, type RetryOptions, type RetryReason } from './retry-policy.ts';

export interface RetryEvent {
  /** The attempt that just failed (1 for the first). */
  attempt: number;
  reason: RetryReason;
  delayMs: number;
  method: string;
  url: string;
  /** The answer that is retried (undefined for a network error). */
  status: number | undefined;
}

export interface RetryingFetchOptions {
  fetch: FetchLike;
  retry: RetryOptions;
  sleep: Sleep;
  /** A number in [0, 1): Math.random unless a test pins it. */
  random: () => number;
  newIdempotencyKey: () => string;
  onRetry?: (event: RetryEvent) => void;
}

/**
 * A fetch for openapi-fetch that makes one logical call out of several attempts
 * (docs/client.md#retries): a write gets its `Idempotency-Key` once, before the first attempt,
 * and every attempt sends a fresh clone of the same request. The last answer is returned as it
 * is, retryable or not; only when no attempt got an answer does it throw ApiNetworkError.
 */
export function createRetryingFetch(options: RetryingFetchOptions): FetchLike {
  return async (input) => {
    const request = withIdempotencyKey(input, options.newIdempotencyKey);
    const { maxAttempts } = options.retry;
    for (let attempt = 1; ; attempt += 1) {
      const isLast = attempt >= maxAttempts;
      // The last attempt may consume the request itself; earlier ones need a body left to resend.
      const sent = isLast ? request : request.clone();
      let response: Response;
      try {
        response = await options.fetch(sent);
      } catch (error) {
        // An abort is the caller's decision, not a network failure.
        if (request.signal.aborted) throw error;
        if (isLast) throw new ApiNetworkError(request.method, request.url, attempt, error);
        await pause(options, request, attempt, 'network-error', undefined, undefined);
        continue;
      }
      const reason = isLast ? undefined : await retryReasonOf(response, options.retry);
      if (reason === undefined) return response;
      const serverDelay = retryAfterMs(response);
      // Free the connection: this answer is dropped.
      await response.body?.cancel().catch(() => undefined);
      await pause(options, request, attempt, reason, response.status, serverDelay);
    }
  };
}

async function pause(
  options: RetryingFetchOptions,
  request: Request,
  attempt: number,
  reason: RetryReason,
  status: number | undefined,
  serverDelayMs: number | undefined,
) {
  const delayMs = retryDelayMs(attempt, serverDelayMs, options.retry, options.random);
  options.onRetry?.({ attempt, reason, delayMs, method: request.method, url: request.url, status });
  await options.sleep(delayMs, request.signal);
}
