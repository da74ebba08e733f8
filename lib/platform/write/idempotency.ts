import { createHash } from 'node:crypto';
import { ApiError, UniqueKeyTakenError } from '../core/errors.ts';

/**
 * The Idempotency-Key protocol (docs/api-guide.md "Idempotency"): rules that need no storage. A key is scoped to the
 * organization, bound to one request fingerprint, and kept 24 hours from its first use.
 */

export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;
export const IDEMPOTENCY_RETENTION_SECONDS = 24 * 60 * 60;

export function requireIdempotencyKey(value: string | undefined): string {
  if (value === undefined) {
    throw new ApiError(400, 'customer-api.idempotency.key-missing', 'Idempotency-Key missing', {
      detail: 'Every write requires an Idempotency-Key header; reuse the same key to retry the same request safely.',
    });
  }
  // Printable ASCII only: no control characters, nothing a proxy could rewrite.
  if (value.length === 0 || value.length > IDEMPOTENCY_KEY_MAX_LENGTH || !/^[\x20-\x7e]+$/.test(value) || value.trim() !== value) {
    throw new ApiError(400, 'customer-api.idempotency.key-invalid', 'Idempotency-Key invalid', {
      detail: `The Idempotency-Key must be 1..${IDEMPOTENCY_KEY_MAX_LENGTH} printable ASCII characters without leading or trailing spaces.`,
    });
  }
  return value;
}

export function hashIdempotencyKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** JSON with sorted keys; binary values become their SHA-256, so files hash by content. */
function canonical(value: unknown): unknown {
  if (value instanceof Uint8Array) return { sha256: createHash('sha256').update(value).digest('hex') };
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, canonical((value as Record<string, unknown>)[key])]),
    );
  }
  return value;
}

export interface RequestIdentity {
  method: string;
  route: string;
  path: unknown;
  query: unknown;
  body: unknown;
  /** The headers the operation declares (e.g. `If-Match`): they change the outcome as much as the body does. */
  headers?: unknown;
}

/** Two requests are "the same" when method, route, path, query, declared headers and parsed body agree. */
export function requestFingerprint(request: RequestIdentity): string {
  const { headers, ...identity } = request;
  const declared = Object.fromEntries(
    Object.entries(headers !== null && typeof headers === 'object' ? headers : {}).filter(([, value]) => value !== undefined),
  );
  // Without declared header values the fingerprint is what it was before headers counted, so keys
  // claimed before that change still replay.
  const fingerprinted = Object.keys(declared).length > 0 ? { ...identity, headers: declared } : identity;
  return createHash('sha256')
    .update(JSON.stringify(canonical(fingerprinted)))
    .digest('hex');
}

/**
 * Whether a refusal is kept as the request's outcome. Only one the commit itself met can be, and
 * of those only a unique key already taken: the same request would meet it every time. Every other
 * refusal (invalid or unknown content, an unknown id, a stale revision, a concurrent change)
 * wrote nothing and tells the client to correct or repeat the request, so the key is given back
 * and that corrected or repeated request runs (docs/api-guide.md "Idempotency").
 */
export function isStoredRefusal(error: unknown, decidedByCommit: boolean): boolean {
  return decidedByCommit && error instanceof UniqueKeyTakenError;
}

export interface StoredResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
  /** The body carries a secret (a webhook signing secret): stored sealed, opened for a replay (docs/webhooks.md "Secrets"). */
  confidential?: boolean;
}

/**
 * A key's record. `R` is how the stored response is held: the response itself, or (in the store,
 * before a decision) a way to read it, since a sealed one can be opened only by the routes that
 * stored it.
 */
export type IdempotencyRecord<R = StoredResponse> =
  | { status: 'in-progress'; fingerprint: string; token: string; createdAt: string; leaseExpiresAt: string }
  | { status: 'completed'; fingerprint: string; token: string; createdAt: string; response: R };

export type ClaimDecision<R = StoredResponse> = { action: 'replay'; response: R } | { action: 'reject'; error: ApiError } | { action: 'retry-claim' };

export function keyReusedError(): ApiError {
  return new ApiError(409, 'customer-api.idempotency.key-reused', 'Idempotency-Key reused', {
    detail: 'This Idempotency-Key was already used for a different request. Use a new key for a new request.',
  });
}

export function inProgressError(): ApiError {
  return new ApiError(409, 'customer-api.idempotency.in-progress', 'Request in progress', {
    detail: 'A request with this Idempotency-Key is still being processed. Retry shortly to get its response.',
    headers: { 'Retry-After': '1' },
  });
}

/**
 * What to do when a claim found an existing record for the key. Decided from the fingerprint
 * before the response is looked at: a different request under the key is refused whatever route
 * stored the response, without reading it.
 */
export function decideOnExisting<R>(existing: IdempotencyRecord<R>, fingerprint: string, now: Date): ClaimDecision<R> {
  if (Date.parse(existing.createdAt) + IDEMPOTENCY_RETENTION_SECONDS * 1000 <= now.getTime()) return { action: 'retry-claim' };
  if (existing.fingerprint !== fingerprint) return { action: 'reject', error: keyReusedError() };
  if (existing.status === 'completed') return { action: 'replay', response: existing.response };
  if (Date.parse(existing.leaseExpiresAt) <= now.getTime()) return { action: 'retry-claim' };
  return { action: 'reject', error: inProgressError() };
}
