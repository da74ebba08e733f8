import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { routeById } from '../../lib/app/routes.ts';
import { apiGatewayEvent, invocationContext } from '../../local/api-gateway-events.ts';
import { countDynamoDbRequests } from '../../local/dynamodb-requests.ts';
import { loadHandler } from '../../local/load-handler.ts';
import { inProcessImports, stockAtOneBin } from '../in-process-import.ts';
import { measureExpirySweep } from '../reservation-expiry.ts';
import { usualBreakdown } from './stock-adjustments.ts';
import { median, percentile, type Measure, type Suite } from './suite.ts';

/**
 * `POST /v1/reservations` and `POST /v1/reservations/{id}/release` (docs/inventory.md
 * "Reservations and available stock"; docs/performance.md "Reservations") through their handlers
 * in this process, the full chain, as the `stock adjustments` suite measures its route: warm
 * latency (p50, p99) of a reservation of 1 line and of 20 lines, the DynamoDB requests each
 * create makes (counted at the app's SDK client, `local/dynamodb-requests.ts`, by command), and
 * the latency of releasing a whole reservation (no body: everything left). Items, a location and
 * their stock records are made first by real imports; every create has a fresh `reference` and
 * `Idempotency-Key` and is released right after, so the stock it drew on is available again and
 * no create runs short. The two sizes alternate call by call, so both see the same machine load.
 * Last, the expiry sweep's cost per expired reservation (bench/reservation-expiry.ts).
 * No target yet.
 */

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

const MANY_LINES = 20;
/** Reservations the expiry sweep measure lets expire. */
const EXPIRED_RESERVATIONS = (quick: boolean) => (quick ? 5 : 100);
/** What every record holds; a create holds 1 of it and its release gives it back. */
const STARTING_QUANTITY = 1000;

interface CallRequests {
  total: number;
  byCommand: Map<string, number>;
}

type Size = 'one' | 'many';

const round = (value: number) => Math.round(value * 100) / 100;

export const reservationsSuite: Suite = {
  name: 'reservations',
  async run(context) {
    // A round is a create and a release of each size. One key per size keeps each under the
    // general limit of 1,200 a minute (2 × (warmup + calls) requests) even in under a minute.
    const warmup = context.quick ? 2 : 20;
    const calls = context.quick ? 10 : 300;
    const [{ createKey }, { keyRegistry }, { dynamoClient }] = await Promise.all([
      import('../../lib/platform/auth/manage-keys.ts'),
      import('../../local/key-registry.ts'),
      import('../../lib/platform/aws/dynamodb-client.ts'),
    ]);

    // Setup: 21 items (one for the 1-line reservations, 20 for the 20-line ones), one location, a stock record of each.
    const seeded = performance.now();
    const imports = await inProcessImports();
    const organizationId = imports.newOrganization('reservations');
    const skus = Array.from({ length: MANY_LINES + 1 }, (_, index) => `RS-${String(index).padStart(2, '0')}`);
    await stockAtOneBin(imports, organizationId, skus, STARTING_QUANTITY);
    const keyOf = async (size: Size) =>
      (await createKey(keyRegistry(), { organizationId, name: `bench reservations (${size})`, scopes: ['stock:write'], environment: 'test' })).key;
    const keys: Record<Size, string> = { one: await keyOf('one'), many: await keyOf('many') };
    context.log(`reservations: ${skus.length} items, 1 location and their stock records made in ${((performance.now() - seeded) / 1000).toFixed(1)} s`);

    const createRoute = routeById('createReservation');
    const releaseRoute = routeById('releaseReservation');
    const [create, release] = await Promise.all([loadHandler<Handler>(createRoute.handler), loadHandler<Handler>(releaseRoute.handler)]);
    const lineSkus: Record<Size, string[]> = { one: skus.slice(0, 1), many: skus.slice(1) };
    let sequence = 0;
    const counter = countDynamoDbRequests(dynamoClient);

    /** One handler call, timed and its DynamoDB requests counted; anything but `status` throws. */
    const invoke = async (
      handler: Handler,
      event: APIGatewayProxyEventV2,
      status: number,
      what: string,
    ): Promise<{ ms: number; requests: CallRequests; body: string }> => {
      counter.reset();
      const started = performance.now();
      const response = await handler(event, invocationContext(event));
      const ms = performance.now() - started;
      const byCommand = new Map<string, number>();
      for (const operation of counter.operations()) byCommand.set(operation, (byCommand.get(operation) ?? 0) + 1);
      if (response.statusCode !== status) throw new Error(`${what} answered ${response.statusCode}: ${String(response.body)}`);
      return { ms, requests: { total: counter.requests.length, byCommand }, body: String(response.body) };
    };

    /** A reservation of 1 of each sku of the size under a fresh reference, then its release, each timed. */
    const reserveAndRelease = async (size: Size) => {
      sequence += 1;
      const headers = { 'content-type': 'application/json', 'idempotency-key': randomUUID() };
      const body = JSON.stringify({
        reference: `BENCH-${sequence}-${randomUUID().slice(0, 8)}`,
        lines: lineSkus[size].map((sku) => ({ sku, locationCode: 'A1', quantity: 1 })),
      });
      const createEvent = apiGatewayEvent(createRoute, { key: keys[size], headers, body });
      const created = await invoke(create, createEvent, 201, `POST /v1/reservations (${lineSkus[size].length} lines)`);
      const { id } = JSON.parse(created.body) as { id: string };
      const releaseEvent = apiGatewayEvent(releaseRoute, {
        path: `/v1/reservations/${id}/release`,
        key: keys[size],
        headers: { 'idempotency-key': randomUUID() },
      });
      const released = await invoke(release, releaseEvent, 200, `POST /v1/reservations/${id}/release (${lineSkus[size].length} lines)`);
      return { create: created, release: released };
    };

    let expiry: Awaited<ReturnType<typeof measureExpirySweep>> | undefined;
    const samples = { create: { one: [] as number[], many: [] as number[] }, release: { one: [] as number[], many: [] as number[] } };
    const requests = { create: { one: [] as CallRequests[], many: [] as CallRequests[] }, release: { one: [] as CallRequests[], many: [] as CallRequests[] } };
    try {
      for (let warm = 0; warm < warmup; warm += 1) {
        await reserveAndRelease('one');
        await reserveAndRelease('many');
      }
      for (let call = 0; call < calls; call += 1) {
        // Alternate which size goes first, as the stock adjustments suite does.
        const order = call % 2 === 0 ? (['one', 'many'] as const) : (['many', 'one'] as const);
        for (const size of order) {
          const measured = await reserveAndRelease(size);
          for (const step of ['create', 'release'] as const) {
            samples[step][size].push(measured[step].ms);
            requests[step][size].push(measured[step].requests);
          }
        }
      }
      expiry = await measureExpirySweep({ organizationId, sku: skus[0] ?? '', locationCode: 'A1', count: EXPIRED_RESERVATIONS(context.quick), counter });
    } finally {
      counter.stop();
    }

    const note = `${calls} warm calls after ${warmup}, handler in process`;
    const measures: Measure[] = [];
    const perCall: Record<Size, number> = { one: 0, many: 0 };
    const breakdowns: string[] = [];
    for (const [size, label] of [
      ['one', '1 line'],
      ['many', `${MANY_LINES} lines`],
    ] as const) {
      measures.push(
        { name: `reservation ${label} p50 (ms)`, value: round(median(samples.create[size])), unit: 'ms', note },
        { name: `reservation ${label} p99 (ms)`, value: round(percentile(samples.create[size], 0.99)), unit: 'ms', note },
      );
      for (const step of ['create', 'release'] as const) {
        const totals = requests[step][size].map((call) => call.total);
        const mean = totals.reduce((sum, total) => sum + total, 0) / totals.length;
        const { usual, share, others } = usualBreakdown(requests[step][size]);
        if (step === 'create') {
          perCall[size] = median(totals);
          breakdowns.push(`${label} ${perCall[size]} (${usual})`);
        }
        context.log(
          `reservation ${step} ${label}: DynamoDB requests per call ${median(totals)}: ${usual} (${share} of ${calls} calls, mean ${round(mean)}, max ${Math.max(...totals)})`,
        );
        for (const [breakdown, count] of others) context.log(`  also ${breakdown} (${count} call${count === 1 ? '' : 's'})`);
      }
    }
    measures.push(
      {
        name: 'reservation requests per call',
        value: Math.max(perCall.one, perCall.many),
        unit: 'requests',
        note: `the larger median of a create of 1 and of ${MANY_LINES} lines: ${breakdowns.join('; ')}; rate-limit lease and idempotency claim included when they happen`,
      },
      {
        name: 'reservation release p50 (ms)',
        value: round(median(samples.release.one)),
        unit: 'ms',
        note: `whole (no body), 1 line; ${MANY_LINES} lines ${round(median(samples.release.many))} ms; requests ${median(requests.release.one.map((call) => call.total))} and ${median(requests.release.many.map((call) => call.total))}; ${note}`,
      },
    );
    if (expiry) {
      const expiryNote = `one sweep over ${expiry.expired} due reservations of 1 line, as the scheduled worker runs it (the expiry index, then one transaction each)`;
      measures.push(
        { name: 'reservation expiry: ms per expired reservation', value: round(expiry.msPerReservation), unit: 'ms', note: expiryNote },
        { name: 'reservation expiry: requests per expired reservation', value: round(expiry.requestsPerReservation), unit: 'requests', note: expiryNote },
      );
    }
    return measures;
  },
};
