import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import type * as z from '../contracts/zod.ts';
import type { OperationContract, RouteOperation } from '../contracts/operation.ts';
import type { Principal } from '../auth/api-key.ts';
import type { ApiKeyLookup } from '../auth/ports.ts';
import type { AuthFailureLimiter } from '../rate-limit/auth-failures.ts';
import type { RateLimitPolicies } from '../rate-limit/fixed-window.ts';
import type { TokenLeases } from '../rate-limit/token-leases.ts';
import type { CommandPlan } from '../write/ports.ts';
import type { RouteDefinition } from '../contracts/route-types.ts';
import { authenticate } from './middleware/authenticate.ts';
import { logger } from '../observability/log.ts';
import { metrics } from '../observability/metrics.ts';
import { requestMetrics } from './middleware/request-metrics.ts';
import { negotiateResponse } from './middleware/negotiate-response.ts';
import { problemDocuments, withProblemDocuments } from './middleware/problem-documents.ts';
import { announceRateLimitPolicy, rateLimit } from './middleware/rate-limit.ts';
import { traceId } from './middleware/trace-id.ts';
import { validateRequest } from './middleware/validate-request.ts';
import type { MultipartParser } from './multipart.ts';
import { toHttpResponse } from './respond.ts';
import { stateOf, type ApiContext, type HandlerResult, type HttpEvent, type HttpResponse, type RequestState } from './types.ts';
import type { WriteDependencies } from './write-dependencies.ts';

/** What the chain needs from outside; the composition root (lib/app/composition.ts) supplies it. */
export interface ChainDependencies {
  apiKeys: ApiKeyLookup;
  /** This container's token leases of the per-key window counters, and this deployment's limits (docs/api-guide.md "Rate limits"). */
  rateLimits: TokenLeases;
  rateLimitPolicies: RateLimitPolicies;
  /** The per-source limit on failed authentications (docs/api-guide.md "Failed authentications"); none without it. */
  authFailures?: AuthFailureLimiter;
  /** Write routes only: Idempotency-Key records and the one-transaction command writer. */
  writes?: WriteDependencies;
  /** Multipart routes only: their handler passes lib/platform/http/multipart.ts, which no other function bundles. */
  parseMultipart?: MultipartParser;
}

/**
 * Commits a write command (docs/architecture.md "The write path") under this request's idempotency claim: `build`
 * plans the records, audit and events; `respond` turns the committed result into the response,
 * which is stored with the idempotency record in the same transaction.
 */
export type Commit = <T>(build: () => Promise<CommandPlan<T>>, respond: (result: T) => HandlerResult, options?: CommitOptions) => Promise<HandlerResult>;

export interface CommitOptions {
  /** The response shows a secret: its idempotency record keeps it sealed (docs/webhooks.md "Secrets"). */
  confidentialResponse?: boolean;
}

type Output<S> = S extends z.ZodType ? z.output<S> : undefined;

/** The validated input every route gets, typed from its operation contract. */
export interface ReadRouteInput<C extends OperationContract> {
  query: Output<C['request']['query']>;
  path: Output<C['request']['path']>;
  headers: Output<C['request']['headers']>;
  body: Output<C['request']['body']>;
  principal: Principal;
  traceId: string;
  event: HttpEvent;
}

/** Write routes (any method but GET) also get `commit`; a read handler cannot even name it. */
export type RouteInput<R extends Pick<RouteDefinition, 'method'>, C extends OperationContract> = R['method'] extends 'GET'
  ? ReadRouteInput<C>
  : ReadRouteInput<C> & { commit: Commit };

export type RouteHandler<R extends Pick<RouteDefinition, 'method'>, C extends OperationContract> = (input: RouteInput<R, C>) => Promise<HandlerResult>;

/**
 * The one Middy chain, in this order: the logger's context and the metrics (outermost, so they
 * see the final response) → problem documents → trace id →
 * auth → rate limit (per API key; sets the RateLimit headers of every later response, 429 when
 * exceeded) → validation → content negotiation → idempotency (writes only) → handler (which
 * serializes its own response, so a stored idempotent response is what the client first got).
 * Wrapped so that even an error escaping the chain leaves as a problem document.
 */
export function createOperationHandler<R extends RouteDefinition, C extends OperationContract>(
  operation: RouteOperation<R, C>,
  dependencies: ChainDependencies,
  handle: RouteHandler<R, C>,
) {
  const { route } = operation;
  const isWrite = route.method !== 'GET';
  const { writes } = dependencies;
  if (isWrite && !writes) throw new Error(`${route.operationId} is a write route: it needs the write dependencies (lib/app/composition-writes.ts)`);
  const chain = middy<HttpEvent, HttpResponse, Error, ApiContext>()
    // Observability wraps everything, so its after/onError hooks run last (docs/operations.md "Logs").
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(logMetrics(metrics))
    .use(requestMetrics(route))
    .use(problemDocuments())
    .use(traceId())
    .use(announceRateLimitPolicy(route, dependencies.rateLimitPolicies))
    .use(authenticate(route.scope, dependencies.apiKeys, { failures: dependencies.authFailures }))
    .use(rateLimit(route, dependencies.rateLimits, dependencies.rateLimitPolicies))
    .use(validateRequest(operation, dependencies.parseMultipart))
    .use(negotiateResponse(route));
  if (isWrite && writes) chain.use(writes.idempotency(route));
  const handler = chain.handler(async (event, context) => {
    const state = stateOf({ context });
    const { input, principal } = state;
    if (!input || !principal) throw new Error('Chain misordered: handler ran before auth and validation');
    const result = await handle({
      query: input.query,
      path: input.path,
      headers: input.headers,
      body: input.body,
      principal,
      traceId: state.traceId,
      event,
      ...(isWrite ? { commit: commitFor(route, state, principal, writes) } : {}),
    } as RouteInput<R, C>);
    return toHttpResponse(result, state);
  });
  return withProblemDocuments(handler, route.operationId);
}

function commitFor(route: RouteDefinition, state: RequestState, principal: Principal, writes: ChainDependencies['writes']): Commit {
  return async (build, respond, options) => {
    if (!writes) throw new Error(`${route.operationId} is not a write route`);
    const { idempotency } = state;
    // The writer builds the plan again after a lost race; a refusal while building is decided
    // before the write, one after it by the commit (docs/api-guide.md "Idempotency").
    const planned = async () => {
      if (idempotency) idempotency.committing = false;
      const plan = await build();
      if (idempotency) idempotency.committing = true;
      return plan;
    };
    const writeContext = {
      organizationId: principal.organizationId,
      actor: { type: 'api-key' as const, id: principal.keyId },
      traceId: state.traceId,
      idempotency: state.idempotency,
    };
    const outcome = await writes.writer.run(writeContext, planned, (committed) => {
      const { statusCode = 200, headers, body = '' } = toHttpResponse(respond(committed), state);
      return { statusCode, headers, body: String(body), ...(options?.confidentialResponse ? { confidential: true } : {}) };
    });
    if (!outcome.response) throw new Error('The writer returned no response');
    const { statusCode, headers, body } = outcome.response;
    return { response: { statusCode, headers, body } };
  };
}
