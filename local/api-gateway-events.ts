import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { lambdaContext } from './lambda-event.ts';
import { createRouteMatcher } from '../lib/platform/http/route-matching.ts';
import type { RouteDefinition } from '../lib/platform/contracts/route-types.ts';

/**
 * API Gateway HTTP API (payload 2.0) events and Lambda contexts for invoking a handler directly,
 * shaped like the ones the local server (lambda-event.ts) and API Gateway produce; tests and
 * benchmarks share them.
 */

export interface EventRequest {
  /** Concrete path; defaults to the route's template. */
  path?: string;
  /** Raw query string without `?`. */
  query?: string;
  /** API key sent as `Authorization: Bearer <key>`. */
  key?: string;
  headers?: Record<string, string>;
  body?: string;
  /** The body is base64 (binary bodies, e.g. multipart), as API Gateway marks it. */
  base64?: boolean;
}

export function apiGatewayEvent(route: Pick<RouteDefinition, 'method' | 'path'>, request: EventRequest = {}): APIGatewayProxyEventV2 {
  const path = request.path ?? route.path;
  const rawQueryString = request.query ?? '';
  const headers: Record<string, string> = { host: 'localhost', 'user-agent': 'vitest' };
  for (const [name, value] of Object.entries(request.headers ?? {})) headers[name.toLowerCase()] = value;
  if (request.key !== undefined) headers.authorization = `Bearer ${request.key}`;
  const queryStringParameters = Object.fromEntries(new URLSearchParams(rawQueryString));
  const routeKey = `${route.method} ${route.path}`;
  // API Gateway fills the template's parameters from the concrete path.
  const matched = createRouteMatcher([{ ...route, operationId: 'event', scope: 'labels:read', handler: '' } as RouteDefinition])(route.method, path);
  const pathParameters = matched.kind === 'matched' && Object.keys(matched.match.pathParameters).length > 0 ? matched.match.pathParameters : undefined;
  const now = Date.now();
  return {
    version: '2.0',
    routeKey,
    rawPath: path,
    rawQueryString,
    headers,
    queryStringParameters: Object.keys(queryStringParameters).length > 0 ? queryStringParameters : undefined,
    requestContext: {
      accountId: '000000000000',
      apiId: 'test',
      domainName: 'localhost',
      domainPrefix: 'test',
      http: { method: route.method, path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'vitest' },
      requestId: randomUUID(),
      routeKey,
      stage: '$default',
      time: new Date(now).toUTCString(),
      timeEpoch: now,
    },
    pathParameters,
    body: request.body,
    isBase64Encoded: request.base64 ?? false,
  };
}

/** A fresh Lambda context per invocation, as Lambda creates one (the chain keeps its state on it). */
export function invocationContext(event: APIGatewayProxyEventV2, functionName = 'test'): Context {
  return lambdaContext(functionName, event.requestContext.requestId);
}
