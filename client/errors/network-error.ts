/** Every attempt of a call failed before any answer arrived (docs/client.md#retries). */
export class ApiNetworkError extends Error {
  override name = 'ApiNetworkError';
  readonly attempts: number;

  constructor(method: string, url: string, attempts: number, cause: unknown) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    super(`${method} ${url} failed after ${attempts} attempt${attempts === 1 ? '' : 's'}: ${reason}`, { cause });
    this.attempts = attempts;
  }
}
