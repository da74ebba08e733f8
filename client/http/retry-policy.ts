/**
 * When and how long to wait before another attempt (docs/client.md#retries).
 */

export interface RetryOptions {
  /** Attempts per logical call, the first included; 1 disables retries. */
  maxAttempts: number;
  /** The first backoff ceiling; each further retry doubles it. */
  baseDelayMs: number;
  /** The largest backoff ceiling. A server's `Retry-After` is honoured even when longer. */
  maxDelayMs: number;
  /**
   * Retry 5xx answers. Safe here because every call the client makes is a GET or carries an
   * `Idempotency-Key`, and the API releases the key of a write that failed before it committed.
   */
  retryServerErrors: boolean;
}

export const DEFAULT_RETRY_OPTIONS: RetryOptions = { maxAttempts: 5, baseDelayMs: 250, maxDelayMs: 20_000, retryServerErrors: true };

export type RetryReason = 'rate-limited' | 'in-progress' | 'server-error' | 'network-error';

/** The idempotent request with this key is still running; the API asks to retry after 1 s. */
export const IN_PROGRESS_CODE = 'customer-api.idempotency.in-progress';

/** Why an answer deserves another attempt, or undefined when it is final (every other 4xx). */
export async function retryReasonOf(response: Response, options: RetryOptions): Promise<RetryReason | undefined> {
  if (response.status === 429) return 'rate-limited';
  if (response.status === 409) return (await problemCodeOf(response)) === IN_PROGRESS_CODE ? 'in-progress' : undefined;
  if (response.status >= 500 && options.retryServerErrors) return 'server-error';
  return undefined;
}

async function problemCodeOf(response: Response): Promise<string | undefined> {
  try {
    const body: unknown = await response.clone().json();
    return typeof body === 'object' && body !== null && 'code' in body && typeof body.code === 'string' ? body.code : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Exponential backoff with full jitter: a uniform wait in [0, min(maxDelayMs, baseDelayMs·2^(retry-1))).
 * With a `Retry-After`, that wait exactly plus a jitter of at most `baseDelayMs`, so that clients
 * refused in the same window do not all come back in the same millisecond.
 */
export function retryDelayMs(retry: number, serverDelayMs: number | undefined, options: RetryOptions, random: () => number): number {
  if (serverDelayMs !== undefined) return serverDelayMs + Math.floor(random() * options.baseDelayMs);
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (retry - 1));
  return Math.floor(random() * ceiling);
}
