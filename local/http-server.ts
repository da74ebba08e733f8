import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { ApiError } from '../lib/platform/core/errors.ts';
import { problemResponse } from '../lib/platform/http/problem.ts';
import { createRouteMatcher } from '../lib/platform/http/route-matching.ts';
import { createReferencePage } from '../lib/app/reference-page.ts';
import { ROUTES } from '../lib/app/routes.ts';
import type { RouteDefinition } from '../lib/platform/contracts/route-types.ts';
import { fromLambdaResult, lambdaContext, toLambdaEvent, type WritableResponse } from './lambda-event.ts';
import { loadHandler } from './load-handler.ts';
import { checkoutReferencePageFiles } from './reference-page.ts';

/** Lambda's synchronous invocation payload limit; API Gateway would refuse more as well. */
const MAX_BODY_BYTES = 6 * 1024 * 1024;
const FALLBACK_HANDLER = 'functions/http/fallback/not-found.ts';

type LambdaHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

class BodyTooLargeError extends Error {}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const declared = Number(request.headers['content-length'] ?? 0);
  if (declared > MAX_BODY_BYTES) throw new BodyTooLargeError();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new BodyTooLargeError();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function send(response: ServerResponse, result: WritableResponse): void {
  response.writeHead(result.statusCode, { ...result.headers, 'Content-Length': String(result.body.length) });
  response.end(result.body);
}

function localProblem(error: ApiError, path: string): WritableResponse {
  return fromLambdaResult(problemResponse(error, { traceId: `local-${Date.now().toString(36)}` }, path));
}

const referencePage = createReferencePage(checkoutReferencePageFiles());

async function handle(request: IncomingMessage, response: ServerResponse, matchRoute: ReturnType<typeof createRouteMatcher<RouteDefinition>>) {
  const path = new URL(request.url ?? '/', 'http://localhost').pathname;
  let body: Buffer;
  try {
    body = await readBody(request);
  } catch (error) {
    if (!(error instanceof BodyTooLargeError)) throw error;
    send(
      response,
      localProblem(
        new ApiError(413, 'customer-api.request.too-large', 'Request too large', { detail: `Requests are limited to ${MAX_BODY_BYTES} bytes.` }),
        path,
      ),
    );
    request.resume();
    return;
  }
  // The API reference (docs/api-guide.md#api-reference) is public: served before the routes and the $default 404.
  const reference = referencePage(request.method ?? 'GET', path);
  if (reference) {
    send(response, fromLambdaResult(reference));
    return;
  }
  const outcome = matchRoute(request.method ?? 'GET', path);
  const matched = outcome.kind === 'matched' ? outcome.match : undefined;
  const routeKey = matched ? `${matched.route.method} ${matched.route.path}` : '$default';
  const event = toLambdaEvent({ request, body, routeKey, pathParameters: matched?.pathParameters });
  const entry = matched?.route.handler ?? FALLBACK_HANDLER;
  const handler = await loadHandler<LambdaHandler>(entry);
  const result = await handler(event, lambdaContext(matched?.route.operationId ?? 'fallback', event.requestContext.requestId));
  send(response, fromLambdaResult(result));
}

/**
 * How long an idle kept-alive connection stays open (Node's default is 5 s). A client busy for a
 * few seconds between two requests (the e2e suites build a response validator per route on first
 * use, seconds on a busy machine) sends its next one on the connection it kept before it has read
 * that the server closed it, and the request fails ("other side closed", ECONNRESET). Clients that
 * honour the `Keep-Alive: timeout` hint (undici) close an idle connection first.
 */
const KEEP_ALIVE_TIMEOUT_MS = 65_000;

export function createLocalServer(): Server {
  const matchRoute = createRouteMatcher<RouteDefinition>(ROUTES);
  return createServer({ keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS }, (request, response) => {
    handle(request, response, matchRoute).catch((error: unknown) => {
      // Handlers turn their own errors into problem documents; this only catches adapter bugs.
      console.error('local server error', error);
      if (!response.headersSent) send(response, localProblem(new ApiError(500, 'customer-api.internal', 'Internal error'), request.url ?? '/'));
    });
  });
}
