import middy from '@middy/core';
import type { z } from 'zod';
import type { Principal } from '../domain/auth/api-key.ts';
import type { ApiKeyLookup } from '../domain/auth/ports.ts';
import type { RouteDefinition } from '../routes.ts';
import { authenticate } from './middleware/authenticate.ts';
import { negotiateResponse } from './middleware/negotiate-response.ts';
import { problemDocuments } from './middleware/problem-documents.ts';
import { traceId } from './middleware/trace-id.ts';
import { validateRequest } from './middleware/validate-request.ts';
import { toHttpResponse } from './respond.ts';
import { stateOf, type ApiContext, type HandlerResult, type HttpEvent, type HttpResponse } from './types.ts';

/** What the chain needs from outside; the composition root (lib/composition.ts) supplies it. */
export interface ChainDependencies {
  apiKeys: ApiKeyLookup;
}

type Output<S> = S extends z.ZodType ? z.output<S> : undefined;

/** The validated input of a route, typed from its zod contracts. */
export interface RouteInput<R extends RouteDefinition> {
  query: Output<R['request']['query']>;
  path: Output<R['request']['path']>;
  body: R['request']['body'] extends { schema: infer S } ? Output<S> : undefined;
  principal: Principal;
  traceId: string;
  event: HttpEvent;
}

export type RouteHandler<R extends RouteDefinition> = (input: RouteInput<R>) => Promise<HandlerResult>;

/**
 * The one Middy chain, in ARCHITECTURE §2 order: problem documents (outermost) → trace id →
 * auth → validation → content negotiation → handler (which serializes its own response).
 * Rate limiting and idempotency join between auth and the handler in the write-path issue.
 */
export function createHttpHandler<R extends RouteDefinition>(route: R, dependencies: ChainDependencies, handle: RouteHandler<R>) {
  return middy<HttpEvent, HttpResponse, Error, ApiContext>()
    .use(problemDocuments())
    .use(traceId())
    .use(authenticate(route.scope, dependencies.apiKeys))
    .use(validateRequest(route))
    .use(negotiateResponse(route))
    .handler(async (event, context) => {
      const state = stateOf({ context });
      const { input, principal } = state;
      if (!input || !principal) throw new Error('Chain misordered: handler ran before auth and validation');
      const result = await handle({
        query: input.query,
        path: input.path,
        body: input.body,
        principal,
        traceId: state.traceId,
        event,
      } as RouteInput<R>);
      return toHttpResponse(result, state);
    });
}
