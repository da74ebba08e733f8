import { randomUUID } from 'node:crypto';
import type { HttpMiddleware, MiddyRequest } from '../types.ts';

/** The API Gateway request id doubles as trace id, so a customer's traceId finds the log line. */
export function traceId(): HttpMiddleware {
  return {
    before: async (request: MiddyRequest) => {
      request.context.requestState = { traceId: request.event.requestContext?.requestId || randomUUID() };
    },
  };
}
