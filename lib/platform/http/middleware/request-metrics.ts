import { logger } from '../../observability/log.ts';
import { countRejection, countRequest, metrics, type RejectionReason } from '../../observability/metrics.ts';
import type { RouteDefinition } from '../../contracts/route-types.ts';
import { toApiError } from '../problem.ts';
import type { HttpMiddleware, HttpResponse, MiddyRequest } from '../types.ts';

/**
 * The problem codes counted as rejections (docs/operations.md "Metrics"): refusals of the
 * request itself, before a handler could act on it. Conflicts, not-founds and 5xx are not.
 */
const REJECTION_REASONS: Readonly<Record<string, RejectionReason>> = {
  'customer-api.auth.unauthenticated': 'auth',
  'customer-api.auth.insufficient-scope': 'auth',
  'customer-api.rate-limit.exceeded': 'rate-limit',
  'customer-api.validation.failed': 'validation',
  'customer-api.request.too-large': 'validation',
  'customer-api.request.unsupported-media-type': 'validation',
  'customer-api.request.not-acceptable': 'validation',
  'customer-api.idempotency.key-missing': 'validation',
  'customer-api.idempotency.key-invalid': 'validation',
};

export function rejectionReasonOf(code: string): RejectionReason | undefined {
  return REJECTION_REASONS[code];
}

/**
 * Counts every response of the route by status class, and rejections by reason. It must come
 * right after `logMetrics` and before the problem-document middleware: Middy runs `after` and
 * `onError` hooks in reverse order, so this one sees the final response (a problem document
 * included) and its count is in the line `logMetrics` then flushes.
 */
export function requestMetrics(route: Pick<RouteDefinition, 'operationId'>): HttpMiddleware {
  return {
    after: async (request: MiddyRequest) => {
      countRequest(route.operationId, request.response?.statusCode ?? 200);
    },
    onError: async (request: MiddyRequest) => {
      // The same error the problem-document middleware turned into the response.
      const reason = rejectionReasonOf(toApiError(request.error).code);
      if (reason) countRejection(reason);
      countRequest(route.operationId, request.response?.statusCode ?? 500);
    },
  };
}

/**
 * Ends a request that Middy's `after` and `onError` hooks never see: a `before` hook that answers
 * itself (an idempotent replay), or an error that escaped the chain. Does what those hooks would
 * have done: counts the response, flushes the metrics, drops the request's log keys.
 */
export function settleOutsideChain<R extends Pick<HttpResponse, 'statusCode'>>(operation: string, response: R): R {
  countRequest(operation, response.statusCode ?? 200);
  metrics.publishStoredMetrics();
  logger.resetKeys();
  return response;
}
