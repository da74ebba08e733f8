/** Methods that never change anything and so carry no `Idempotency-Key`. */
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/**
 * The request with an `Idempotency-Key` when it is a write without one (docs/client.md#idempotency).
 * Called once per logical call, so every retry of that call sends the same key.
 */
export function withIdempotencyKey(request: Request, newKey: () => string): Request {
  if (SAFE_METHODS.has(request.method) || request.headers.has(IDEMPOTENCY_KEY_HEADER)) return request;
  const headers = new Headers(request.headers);
  headers.set(IDEMPOTENCY_KEY_HEADER, newKey());
  return new Request(request, { headers });
}
