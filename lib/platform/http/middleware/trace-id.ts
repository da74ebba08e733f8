import { randomUUID } from 'node:crypto';
import { logger } from '../../observability/log.ts';
import type { HttpMiddleware, MiddyRequest } from '../types.ts';

/**
 * The API Gateway request id doubles as trace id, so a customer's traceId finds the log lines:
 * it is a key of every line logged for the request from here on (docs/operations.md "Logs").
 */
export function traceId(): HttpMiddleware {
  return {
    before: async (request: MiddyRequest) => {
      const id = request.event.requestContext?.requestId || randomUUID();
      request.context.requestState = { traceId: id };
      logger.appendKeys({ traceId: id });
    },
  };
}
