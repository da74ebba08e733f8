import { randomUUID } from 'node:crypto';
import { describeError, log } from '../../log.ts';
import { problemResponse, toApiError } from '../problem.ts';
import type { HttpMiddleware, MiddyRequest } from '../types.ts';

/** Outermost middleware: every thrown error leaves as a problem document. */
export function problemDocuments(): HttpMiddleware {
  return {
    onError: async (request: MiddyRequest) => {
      const apiError = toApiError(request.error);
      const state = request.context.requestState ?? { traceId: randomUUID() };
      const { traceId } = state;
      if (apiError.status >= 500) {
        log('error', 'request failed', { traceId, route: request.event.routeKey, ...describeError(request.error) });
      }
      request.response = problemResponse(apiError, state, request.event.rawPath ?? '/');
    },
  };
}
