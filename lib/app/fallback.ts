import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import { logger } from '../platform/observability/log.ts';
import { metrics } from '../platform/observability/metrics.ts';
import { ApiError } from '../platform/core/errors.ts';
import { ROUTES } from './routes.ts';
import { problemDocuments } from '../platform/http/middleware/problem-documents.ts';
import { requestMetrics } from '../platform/http/middleware/request-metrics.ts';
import { traceId } from '../platform/http/middleware/trace-id.ts';
import { createRouteMatcher } from '../platform/http/route-matching.ts';
import type { ApiContext, HttpEvent, HttpResponse } from '../platform/http/types.ts';

const matchRoute = createRouteMatcher(ROUTES);

/** The `operation` dimension of the fallback's requests: it has no operationId of its own. */
export const FALLBACK_OPERATION = '$default';

/**
 * What answers requests no route claims (API Gateway's `$default` route, and the local server):
 * 405 with `Allow` when the path exists under another method, else 404. No auth: the route
 * list is public (docs/openapi.json), so this reveals nothing.
 */
export function createFallbackHandler() {
  return middy<HttpEvent, HttpResponse, Error, ApiContext>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(logMetrics(metrics))
    .use(requestMetrics({ operationId: FALLBACK_OPERATION }))
    .use(problemDocuments())
    .use(traceId())
    .handler(async (event) => {
      const outcome = matchRoute(event.requestContext.http.method, event.rawPath);
      if (outcome.kind === 'method-not-allowed') {
        throw new ApiError(405, 'customer-api.request.method-not-allowed', 'Method not allowed', {
          detail: `This path supports: ${outcome.allowed.join(', ')}.`,
          headers: { Allow: outcome.allowed.join(', ') },
        });
      }
      throw new ApiError(404, 'customer-api.route.not-found', 'Not found', { detail: 'No endpoint has this path.' });
    });
}
