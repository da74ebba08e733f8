import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { MiddlewareObj, Request } from '@middy/core';
import type { Principal } from '../auth/api-key.ts';
import type { RateLimitWindowStatus } from '../rate-limit/types.ts';
import type { IdempotencyClaim } from '../write/ports.ts';
import type { ResponseMediaType } from './content-negotiation.ts';

export type HttpEvent = APIGatewayProxyEventV2;
export type HttpResponse = APIGatewayProxyStructuredResultV2 & { headers: Record<string, string> };

export interface ValidatedInput {
  query: unknown;
  path: unknown;
  headers: unknown;
  body: unknown;
}

/** Per-request state. It lives on the invocation's context object, never in module variables. */
export interface RequestState {
  traceId: string;
  principal?: Principal;
  input?: ValidatedInput;
  responseMediaType?: ResponseMediaType;
  rateLimit?: RateLimitWindowStatus[];
  rateLimitPolicy?: Pick<RateLimitWindowStatus, 'policy' | 'limit' | 'windowSeconds'>[];
  /**
   * Set on write routes once the Idempotency-Key is claimed for this request. `committing`: the
   * command's plan is built and its transaction is being committed, so a refusal now was decided
   * by the commit, not before it.
   */
  idempotency?: { key: string; claim: IdempotencyClaim; committing?: boolean };
}

/** Lambda creates a context per invocation (the local adapter too), so it carries the state. */
export type ApiContext = Context & { requestState?: RequestState };

export type MiddyRequest = Request<HttpEvent, HttpResponse, Error, ApiContext>;
export type HttpMiddleware = MiddlewareObj<HttpEvent, HttpResponse, Error, ApiContext>;

/** The state set by the trace-id middleware; later middleware may rely on it. */
export function stateOf(request: { context: ApiContext }): RequestState {
  const state = request.context.requestState;
  if (!state) throw new Error('Request state missing: the trace-id middleware must run first');
  return state;
}

/** What a route handler returns; the chain serializes it. */
export type HandlerResult =
  | { status: number; json: unknown; headers?: Record<string, string> }
  | { status: number; text: string; mediaType: string; headers?: Record<string, string> }
  | { status: number; empty: true; headers?: Record<string, string> }
  /** Already serialized, e.g. the response committed with the idempotency record. */
  | { response: HttpResponse };
