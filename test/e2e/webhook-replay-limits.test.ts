import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newTask } from '../../lib/webhooks/domain/dispatch.ts';
import type { DeliveryTask } from '../../lib/webhooks/domain/ports.ts';
import { REPLAY_PAGE_SIZE } from '../../lib/webhooks/domain/replay.ts';
import { MAX_REPLAY_TASKS_IN_FLIGHT, REPLAY_WAIT_SECONDS } from '../../lib/webhooks/domain/replay-limits.ts';
import { WebhookDeliveriesStore } from '../../lib/webhooks/store/webhook-deliveries-store.ts';
import { callApi, createTestKey, uniqueOrganization } from '../support/api.ts';
import { commit, eventDraft, tableName } from '../support/events.ts';
import { expectProblem } from '../support/problem.ts';
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts';

/**
 * Replays are bounded (docs/webhooks.md "Replaying"), over HTTP against `npm start`: one running
 * replay per endpoint (a second is a 409 `customer-api.webhooks.replay-in-progress`, and once the
 * first has ended a new one is accepted), and an organization's unfinished replay tasks are
 * capped: while they leave no room for a page, a replay's page waits and queues nothing.
 */

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
});

const write = (key: string, method: string, path: string, body?: unknown) =>
  callApi(path, {
    method,
    key,
    headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

async function register(key: string, path: string): Promise<string> {
  const response = await write(key, 'POST', '/v1/webhooks/endpoints', { url: receiver.url(path) });
  const created = (await response.json()) as { id: string; secret: string };
  expect(response.status, JSON.stringify(created)).toBe(201);
  receiver.trust(path, created.secret);
  return created.id;
}

const deliveries = () => new WebhookDeliveriesStore(tableName('inventory'));

/**
 * Unfinished replay tasks of another endpoint of the organization, as a replay that is still
 * delivering leaves them: pending, attempted by no one (no message is queued for them).
 */
/** Ends tasks as the worker cancels one whose endpoint went: claimed, then ended as cancelled. */
async function cancelAll(tasks: DeliveryTask[]): Promise<void> {
  await Promise.all(
    tasks.map(async (task) => {
      const attempt = { attemptId: `wha_cancel${randomUUID().replaceAll('-', '')}`, number: 1, startedAt: new Date().toISOString() };
      const claim = await deliveries().claimAttempt(task, attempt);
      if (!claim.claimed) throw new Error(`load task ${task.eventId} was taken`);
      expect(await deliveries().finishTask(claim.task, attempt.attemptId, { status: 'cancelled', nextAttemptAt: null })).toBe(true);
    }),
  );
}

async function pendingReplayTasks(organizationId: string, endpointId: string, count: number): Promise<DeliveryTask[]> {
  const origin = `whr_load${randomUUID().replaceAll('-', '')}`;
  const tasks = Array.from({ length: count }, (_, index) =>
    newTask(
      { organizationId, sequence: index + 1, eventId: `evt_load${index}`, type: 'item.created', committedAt: new Date().toISOString() },
      endpointId,
      origin,
    ),
  );
  for (let start = 0; start < tasks.length; start += 50) await Promise.all(tasks.slice(start, start + 50).map((task) => deliveries().createTask(task)));
  return tasks;
}

describe('replay limits', () => {
  it('a second replay of an endpoint is a 409 while the first runs; the cap holds its page back; once it ends, a new one is accepted', async () => {
    const organizationId = uniqueOrganization();
    const { key } = await createTestKey({ organizationId, scopes: ['all'] });
    const { events } = await commit(organizationId, [eventDraft('item.created'), eventDraft('item.updated'), eventDraft('stock.changed')]);
    // Registered after the events: only replays send them.
    const path = `/replay-limits/${randomUUID()}`;
    const endpointId = await register(key, path);
    const busyEndpointId = await register(key, `/replay-limits-busy/${randomUUID()}`);
    // One task more than leaves room for a whole page under the cap.
    const load = await pendingReplayTasks(organizationId, busyEndpointId, MAX_REPLAY_TASKS_IN_FLIGHT - REPLAY_PAGE_SIZE + 1);

    const first = await write(key, 'POST', `/v1/webhooks/endpoints/${endpointId}/replays`, { afterEventId: events[0]?.id });
    expect(first.status, await first.clone().text()).toBe(202);
    const firstReplay = (await first.json()) as { id: string };
    const second = await write(key, 'POST', `/v1/webhooks/endpoints/${endpointId}/replays`, { afterEventId: events[0]?.id });
    const problem = await expectProblem(second, 409, 'customer-api.webhooks.replay-in-progress');
    expect(problem.detail).toContain(firstReplay.id);
    // Another endpoint of the organization is not held by it (the cap, not the lock, paces it).
    const otherEndpoint = await write(key, 'POST', `/v1/webhooks/endpoints/${busyEndpointId}/replays`, {
      fromUtc: new Date(Date.now() + 3_600_000).toISOString(),
    });
    expect(otherEndpoint.status, await otherEndpoint.clone().text()).toBe(202);

    // The cap holds: the page waits and queues nothing while the organization is over it.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(receiver.deliveries(path)).toHaveLength(0);

    // The earlier replay's tasks end (here: cancelled); at its next look the page goes ahead.
    await cancelAll(load);
    const replayed = await receiver.waitFor(path, 2, (REPLAY_WAIT_SECONDS + 15) * 1000);
    expect(replayed.map((delivery) => delivery.headers['webhook-id']).sort()).toEqual([events[1]?.id, events[2]?.id].sort());

    // Ended: the endpoint takes a new replay (the end and the release are one transaction, so no 409 after the deliveries).
    let again = await write(key, 'POST', `/v1/webhooks/endpoints/${endpointId}/replays`, { afterEventId: events[1]?.id });
    for (let tries = 0; again.status === 409 && tries < 20; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      again = await write(key, 'POST', `/v1/webhooks/endpoints/${endpointId}/replays`, { afterEventId: events[1]?.id });
    }
    expect(again.status, await again.clone().text()).toBe(202);
    const all = await receiver.waitFor(path, 3);
    expect(all[2]?.headers['webhook-id']).toBe(events[2]?.id);
  }, 90_000);

  it('of concurrent replay requests for one endpoint, exactly one starts a replay; the others are 409s', async () => {
    const organizationId = uniqueOrganization();
    const { key } = await createTestKey({ organizationId, scopes: ['all'] });
    await commit(organizationId, [eventDraft('item.created')]);
    const endpointId = await register(key, `/replay-race/${randomUUID()}`);
    const busyEndpointId = await register(key, `/replay-race-busy/${randomUUID()}`);
    // Over the cap, so the replay that wins stays running while the others commit.
    const load = await pendingReplayTasks(organizationId, busyEndpointId, MAX_REPLAY_TASKS_IN_FLIGHT - REPLAY_PAGE_SIZE + 1);
    const responses = await Promise.all(
      Array.from({ length: 5 }, () => write(key, 'POST', `/v1/webhooks/endpoints/${endpointId}/replays`, { fromUtc: '2026-01-01T00:00:00Z' })),
    );
    expect(responses.map((response) => response.status).sort()).toEqual([202, 409, 409, 409, 409]);
    for (const refused of responses.filter((response) => response.status === 409))
      await expectProblem(refused, 409, 'customer-api.webhooks.replay-in-progress');
    await cancelAll(load);
  });
});
