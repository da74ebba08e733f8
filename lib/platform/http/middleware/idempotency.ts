import { ApiError } from '../../core/errors.ts';
import { describeError, log } from '../../observability/log.ts';
import { hashIdempotencyKey, isStoredRefusal, requestFingerprint, requireIdempotencyKey } from '../../write/idempotency.ts';
import type { IdempotencyRecords } from '../../write/ports.ts';
import type { RouteDefinition } from '../../contracts/route-types.ts';
import { header, rateLimitHeaders } from '../headers.ts';
import { problemResponse } from '../problem.ts';
import { settleOutsideChain } from './request-metrics.ts';
import { stateOf, type HttpMiddleware, type MiddyRequest } from '../types.ts';

export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';

/**
 * Idempotency-Key for writes (docs/api-guide.md "Idempotency"). Runs after auth, rate limit and validation, so
 * those refusals never touch a key. Claims the key, or replays the stored response, or refuses
 * with 409. A unique key the commit found taken is stored as the request's outcome; every other
 * refusal (before the write or by the commit's checks: an unknown reference or id, a stale
 * revision) and anything unexpected gives the key back, so a corrected retry with the same key
 * runs (`isStoredRefusal`).
 */
export function idempotency(route: RouteDefinition, records: IdempotencyRecords, clock: () => Date = () => new Date()): HttpMiddleware {
  return {
    before: async (request: MiddyRequest) => {
      const state = stateOf(request);
      const key = requireIdempotencyKey(header(request.event, 'idempotency-key'));
      const { principal, input } = state;
      if (!principal || !input) throw new Error('Chain misordered: idempotency runs after auth and validation');
      const fingerprint = requestFingerprint({
        method: route.method,
        route: route.path,
        path: input.path,
        query: input.query,
        body: input.body,
        headers: input.headers,
      });
      const outcome = await records.claim(principal.organizationId, hashIdempotencyKey(key), fingerprint, clock());
      if (outcome.kind === 'rejected') throw outcome.error;
      if (outcome.kind === 'replay') {
        const { response } = outcome;
        // Answering from `before` skips every later hook of the chain, the metrics flush included.
        return settleOutsideChain(route.operationId, {
          statusCode: response.statusCode,
          headers: { ...response.headers, ...rateLimitHeaders(state.rateLimit ?? []), [IDEMPOTENT_REPLAYED_HEADER]: 'true' },
          body: response.body,
        });
      }
      state.idempotency = { key, claim: outcome.claim };
      return undefined;
    },
    onError: async (request: MiddyRequest) => {
      const claimed = request.context.requestState?.idempotency;
      if (!claimed) return;
      const { error } = request;
      const completing = error instanceof ApiError && isStoredRefusal(error, claimed.committing === true);
      try {
        if (completing) {
          const stored = problemResponse(error, stateOf(request), request.event.rawPath ?? '/');
          await records.complete(
            claimed.claim,
            { statusCode: stored.statusCode ?? error.status, headers: stored.headers, body: String(stored.body ?? '') },
            clock(),
          );
        } else {
          await records.release(claimed.claim);
        }
      } catch (storageError) {
        // The key stays claimed until its lease lapses, so the answer is no longer the request's
        // stored outcome: it becomes the storage failure (a 500 problem document, by the outer
        // middleware), and a retry with the same key is safe (409 in-progress until the lease lapses).
        log('error', completing ? 'idempotency record not completed' : 'idempotency claim not released', {
          traceId: request.context.requestState?.traceId,
          route: request.event.routeKey,
          answer: error instanceof ApiError ? error.code : describeError(error),
        });
        request.error = storageError instanceof Error ? storageError : new Error(String(storageError));
      }
    },
  };
}
