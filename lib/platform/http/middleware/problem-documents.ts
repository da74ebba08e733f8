import { randomUUID } from 'node:crypto';
import { describeError, log } from '../../observability/log.ts';
import { isThrottling, problemResponse, toApiError } from '../problem.ts';
import { settleOutsideChain } from './request-metrics.ts';
import type { Context } from 'aws-lambda';
import type { ApiContext, HttpEvent, HttpMiddleware, HttpResponse, MiddyRequest } from '../types.ts';

/**
 * Outermost middleware: every thrown error leaves as a problem document. Storage failures of
 * any step (key lookup, rate-limit counter, idempotency record, the write) are 500
 * `customer-api.internal`, with a generic detail: nothing of the error reaches the body.
 */
export function problemDocuments(): HttpMiddleware {
  return {
    onError: async (request: MiddyRequest) => {
      const apiError = toApiError(request.error);
      const state = request.context.requestState ?? { traceId: randomUUID() };
      const { traceId } = state;
      if (apiError.status >= 500) {
        log('error', 'request failed', {
          traceId,
          route: request.event.routeKey,
          ...describeError(request.error),
          ...(isThrottling(request.error) ? { throttled: true } : {}),
        });
      }
      request.response = problemResponse(apiError, state, request.event.rawPath ?? '/');
    },
  };
}

/**
 * The last resort around a Middy handler: an error that escapes the middleware chain (one
 * thrown by another middleware's `onError`, which stops Middy's error handling) still leaves as a
 * problem document with the request's traceId, never as API Gateway's bare 500. With the route's
 * `operation`, that response is counted too (the chain's own counting never saw it).
 */
export function withProblemDocuments(handler: (event: HttpEvent, context: ApiContext) => Promise<HttpResponse>, operation?: string) {
  return async (event: HttpEvent, context: Context): Promise<HttpResponse> => {
    const apiContext: ApiContext = context;
    try {
      return await handler(event, apiContext);
    } catch (error) {
      const state = apiContext.requestState ?? { traceId: randomUUID() };
      const apiError = toApiError(error);
      log('error', 'request failed outside the problem-document middleware', { traceId: state.traceId, route: event.routeKey, ...describeError(error) });
      const response = problemResponse(apiError, state, event.rawPath ?? '/');
      return operation === undefined ? response : settleOutsideChain(operation, response);
    }
  };
}
