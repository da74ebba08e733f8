import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { routeById } from '../../lib/app/routes.ts';
import { apiGatewayEvent, invocationContext } from '../../local/api-gateway-events.ts';
import { median, percentile, type Measure, type Suite } from './suite.ts';
import { createTenant } from './tenant.ts';

/**
 * Warm latency of the full Middy chain against the same work without it (docs/performance.md
 * "Middleware overhead"), for `GET /v1/boms/{id}` in this process: the chain's handler, and a bare
 * function doing what the chain does for that request by direct calls (the cached key lookup, the
 * rate-limit token (leased), the domain read, the JSON body). The difference is what Middy and
 * the middleware plumbing cost: trace id, problem documents, validation, negotiation, headers.
 * Calls alternate, so both see the same machine load.
 */

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;
const OVERHEAD_TARGET_PERCENT = 15;

export const middlewareOverheadSuite: Suite = {
  name: 'middleware overhead',
  async run(context) {
    // One key's general limit is 1200 a minute: stay under it.
    const rounds = context.quick ? 20 : 400;
    const tenant = await createTenant(context.stack);
    const route = routeById('getBom');
    const [{ handler }, { chainDependencies }, { hashApiKey }, { windowStartOf, counterExpiresAt }, { bomReads }, { publicBom }, { bomETag }] =
      await Promise.all([
        import('../../functions/http/boms/get-bom.ts') as Promise<{ handler: Handler }>,
        import('../../lib/app/composition.ts'),
        import('../../lib/platform/auth/api-key.ts'),
        import('../../lib/platform/rate-limit/fixed-window.ts'),
        import('../../functions/http/boms/reads.ts'),
        import('../../lib/boms/domain/views.ts'),
        import('../../lib/boms/domain/commands.ts'),
      ]);
    const reads = bomReads();
    const bare = async () => {
      const record = await chainDependencies.apiKeys.findByHash(hashApiKey(tenant.key));
      if (!record) throw new Error('bench key not found');
      const windowStartEpochSeconds = windowStartOf(Date.now(), 60);
      const window = { windowSeconds: 60, windowStartEpochSeconds, expiresAtEpochSeconds: counterExpiresAt(windowStartEpochSeconds, 60) };
      await chainDependencies.rateLimits.acquire(record.keyId, window, [chainDependencies.rateLimitPolicies.general], Date.now());
      const { bom, version } = await reads.get(record.organizationId, tenant.bomId);
      return { statusCode: 200, headers: { etag: bomETag(bom, version) }, body: JSON.stringify(publicBom(bom)) };
    };
    const full = async () => {
      const event = apiGatewayEvent(route, { path: `/v1/boms/${tenant.bomId}`, key: tenant.key });
      const response = await handler(event, invocationContext(event));
      if (response.statusCode !== 200) throw new Error(`GET /v1/boms/{id} answered ${response.statusCode}`);
    };
    await full();
    await bare();
    const withChain: number[] = [];
    const without: number[] = [];
    for (let round = 0; round < rounds; round += 1) {
      for (const [run, samples] of round % 2 === 0
        ? ([
            [full, withChain],
            [bare, without],
          ] as const)
        : ([
            [bare, without],
            [full, withChain],
          ] as const)) {
        const started = performance.now();
        await run();
        samples.push(performance.now() - started);
      }
    }
    const [chainP50, bareP50] = [median(withChain), median(without)];
    context.log(`middleware overhead: ${rounds} calls each`);
    return [
      { name: 'GET /v1/boms/{id} warm, full Middy chain, p50', value: round(chainP50), unit: 'ms' },
      { name: 'GET /v1/boms/{id} warm, full Middy chain, p99', value: round(percentile(withChain, 0.99)), unit: 'ms' },
      { name: 'GET /v1/boms/{id} warm, same work without middleware, p50', value: round(bareP50), unit: 'ms' },
      { name: 'GET /v1/boms/{id} warm, same work without middleware, p99', value: round(percentile(without, 0.99)), unit: 'ms' },
      {
        name: 'Middy chain overhead at p50',
        value: round(((chainP50 - bareP50) / bareP50) * 100),
        unit: '%',
        target: { comparison: '<=', value: OVERHEAD_TARGET_PERCENT },
        note: `${rounds} alternating calls each`,
      },
    ] satisfies Measure[];
  },
};

const round = (value: number) => Math.round(value * 100) / 100;
