import { describe, expect, it } from 'vitest';
import type { FairShareLimits } from '../../lib/domain/webhooks/fair-share.ts';
import { WebhookAttemptGate } from '../../lib/store/webhook-attempt-gate.ts';
import { uniqueOrganization } from '../support/api.ts';
import { tableName } from '../support/events.ts';

/**
 * The fair-share gate on DynamoDB Local (docs/webhooks.md "Fairness"): several workers (gate
 * instances, as separate containers would be) asking at once never hold more than the shares,
 * a freed slot is taken again, and the circuit breaker's count survives from worker to worker.
 */

const limits: FairShareLimits = { organizationShare: 4, endpointShare: 2, openCircuitAfterTimeouts: 2, openCircuitShare: 1 };
const workers = (count: number) => Array.from({ length: count }, () => new WebhookAttemptGate(tableName('inventory'), { limits, leaseMs: 60_000 }));

describe('WebhookAttemptGate', () => {
  it('four workers asking 40 times at once for 8 endpoints of one organization: at most 4 leases, at most 2 per endpoint', async () => {
    const organizationId = uniqueOrganization();
    const gates = workers(4);

    const asks = Array.from({ length: 40 }, (_, index) => ({ gate: gates[index % 4] as WebhookAttemptGate, request: { organizationId, endpointId: `whe_${index % 8}`, leaseId: `lease-${index}` } }));
    const answers = await Promise.all(asks.map(async ({ gate, request }) => ({ request, admission: await gate.acquire(request) })));

    const admitted = answers.filter(({ admission }) => admission.admitted).map(({ request }) => request);
    expect(admitted.length).toBeGreaterThanOrEqual(1);
    expect(admitted.length).toBeLessThanOrEqual(4);
    for (const endpointId of new Set(admitted.map((request) => request.endpointId))) expect(admitted.filter((request) => request.endpointId === endpointId).length).toBeLessThanOrEqual(2);
    // Every lease given back: a fresh worker is admitted again.
    await Promise.all(admitted.map((request) => (gates[0] as WebhookAttemptGate).release({ ...request, timedOut: false })));
    const [fresh] = workers(1);
    expect(await fresh?.acquire({ organizationId, endpointId: 'whe_0', leaseId: 'after' })).toEqual({ admitted: true });
  });

  it('opens the circuit after consecutive timeouts seen by different workers, and closes it after an answer', async () => {
    const organizationId = uniqueOrganization();
    const [first, second, third] = workers(3) as [WebhookAttemptGate, WebhookAttemptGate, WebhookAttemptGate];
    const lease = (leaseId: string) => ({ organizationId, endpointId: 'whe_slow', leaseId });
    for (const [gate, id] of [[first, 't1'], [second, 't2']] as const) {
      expect(await gate.acquire(lease(id))).toEqual({ admitted: true });
      await gate.release({ ...lease(id), timedOut: true });
    }

    expect(await third.acquire(lease('probe'))).toEqual({ admitted: true });
    expect(await first.acquire(lease('second'))).toEqual({ admitted: false, reason: 'open-circuit' });
    await third.release({ ...lease('probe'), timedOut: false });

    const [fresh] = workers(1);
    expect(await fresh?.acquire(lease('a'))).toEqual({ admitted: true });
    expect(await fresh?.acquire(lease('b'))).toEqual({ admitted: true });
  });
});
