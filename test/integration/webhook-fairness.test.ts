import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts';
import { registerEndpoints, startDeliveryHarness, tenantWithEvents, type DeliveryHarness, type Tenant } from '../support/webhook-delivery-harness.ts';

/**
 * Fairness of the delivery worker (docs/webhooks.md "Fairness") on the local stack: endpoints
 * that accept the connection and never answer, with thousands of attempts queued, beside a
 * healthy endpoint whose deliveries must keep their latency. Attempts end after 2 s here (15 s
 * on a stage), so without shares the hanging attempts would hold the worker's 200 parallel
 * attempts for 3 s at a time and the healthy events would wait their turn behind them.
 * `WEBHOOK_FAIRNESS_OFF=1` runs the same scenarios without the shares, to see them fail: on
 * 2026-11-27 the first healthy event of the first had not arrived 30 s after being queued, and
 * that of the second took 15.7 s (with the base-only shares of then: 2.9 s and 0.4 s at most;
 * with the work-conserving shares in service since, 1.7-2.8 s and 1.1-1.2 s at most).
 */

/** The attempt deadline of these tests. */
const ATTEMPT_TIMEOUT_MS = 3000;
/** A healthy endpoint's event must arrive within this of being queued, hanging neighbours or not. */
const HEALTHY_LATENCY_BOUND_MS = 8000;
/** The same, beside one hanging endpoint of the same tenant (400 attempts queued, not thousands). */
const SAME_TENANT_LATENCY_BOUND_MS = 5000;
/** Healthy events queued one after another while the hanging ones are in the queue. */
const HEALTHY_EVENTS = 8;

let receiver: Receiver;
let harness: DeliveryHarness | undefined;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterEach(async () => {
  await harness?.stop();
  harness = undefined;
});
afterAll(async () => {
  await receiver.close();
});

/** Queues the healthy tenant's events one at a time, 250 ms apart, and returns each one's time from queueing to arrival. */
async function healthyLatencies(tenant: Tenant, endpointId: string, path: string, firstEvent: number): Promise<number[]> {
  const active = harness;
  if (!active) throw new Error('no harness');
  const latencies: number[] = [];
  for (let index = 0; index < HEALTHY_EVENTS; index += 1) {
    const queuedAt = Date.now();
    await active.queueDeliveries(tenant, [{ endpointId, eventIndex: firstEvent + index }]);
    const arrived = await receiver.waitFor(path, index + 1, 30_000);
    latencies.push((arrived[index]?.receivedAt ?? Number.NaN) - queuedAt);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return latencies;
}

describe('delivery fairness', () => {
  it("another tenant's 16 hanging endpoints with 2,000 attempts queued: the healthy tenant's events still arrive within 8 s", async () => {
    // Prepare: tenant A's 16 endpoints hang; tenant B's one endpoint answers 204.
    const run = randomUUID().slice(0, 8);
    const hangingTenant = await tenantWithEvents(125);
    const healthyTenant = await tenantWithEvents(HEALTHY_EVENTS);
    const hangingPaths = Array.from({ length: 16 }, (_, index) => `/fair-a/${run}/hang-${index}`);
    for (const path of hangingPaths) receiver.answer(path, { hang: true });
    const healthyPath = `/fair-a/${run}/healthy`;
    receiver.answer(healthyPath, { status: 204 });
    const hangingEndpoints = await registerEndpoints(hangingTenant, receiver, hangingPaths);
    const [healthyEndpoint] = await registerEndpoints(healthyTenant, receiver, [healthyPath]);
    harness = await startDeliveryHarness({ attemptTimeoutMs: ATTEMPT_TIMEOUT_MS, fair: process.env.WEBHOOK_FAIRNESS_OFF !== '1' });
    await harness.queueDeliveries(
      hangingTenant,
      hangingEndpoints.flatMap((endpointId) => hangingTenant.events.map((_, eventIndex) => ({ endpointId, eventIndex }))),
    );

    // Act
    harness.startPolling();
    const latencies = await healthyLatencies(healthyTenant, healthyEndpoint ?? '', healthyPath, 0);

    // Assess: every healthy event within the bound; tenant A held at most its share of attempts
    expect(Math.max(...latencies), `latencies ${latencies.join(', ')} ms`).toBeLessThanOrEqual(HEALTHY_LATENCY_BOUND_MS);
    const hangingAttempts = hangingPaths.reduce((sum, path) => sum + receiver.deliveries(path).length, 0);
    expect(hangingAttempts).toBeGreaterThan(0);
  });

  it("a hanging endpoint of the same tenant with 400 attempts queued: the tenant's healthy endpoint's events still arrive within 5 s", async () => {
    // Prepare
    const run = randomUUID().slice(0, 8);
    const tenant = await tenantWithEvents(400 + HEALTHY_EVENTS);
    const hangingPath = `/fair-b/${run}/hang`;
    const healthyPath = `/fair-b/${run}/healthy`;
    receiver.answer(hangingPath, { hang: true });
    receiver.answer(healthyPath, { status: 204 });
    const [hangingEndpoint, healthyEndpoint] = await registerEndpoints(tenant, receiver, [hangingPath, healthyPath]);
    harness = await startDeliveryHarness({ attemptTimeoutMs: ATTEMPT_TIMEOUT_MS, fair: process.env.WEBHOOK_FAIRNESS_OFF !== '1' });
    await harness.queueDeliveries(
      tenant,
      Array.from({ length: 400 }, (_, eventIndex) => ({ endpointId: hangingEndpoint ?? '', eventIndex })),
    );
    harness.startPolling();

    // Act
    const latencies = await healthyLatencies(tenant, healthyEndpoint ?? '', healthyPath, 400);

    // Assess
    expect(Math.max(...latencies), `latencies ${latencies.join(', ')} ms`).toBeLessThanOrEqual(SAME_TENANT_LATENCY_BOUND_MS);
  });
});
