import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES, type EventType } from '../../lib/events/contracts/events.ts';
import { callApi, createTestKey, uniqueOrganization } from '../support/api.ts';
import { commit, eventDraft } from '../support/events.ts';
import { expectProblem } from '../support/problem.ts';
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts';

/**
 * Webhooks over HTTP against `npm start` (docs/webhooks.md): endpoints registered through the
 * API, events committed by the real writer, delivered through the stream, the dispatcher, the
 * delivery queue and the worker to a receiver on 127.0.0.1 that verifies every request with the
 * `standardwebhooks` library. The test stack runs with WEBHOOK_ALLOW_LOOPBACK=1 and a 1 s first
 * retry wait (test/support/global-stack.ts).
 */

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
});

const json = (body: unknown) => JSON.stringify(body);
const write = (key: string, method: string, path: string, body?: unknown) =>
  callApi(path, {
    method,
    key,
    headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
    ...(body === undefined ? {} : { body: json(body) }),
  });

interface Created {
  id: string;
  secret: string;
  status: string;
  disabledReason: string | null;
}

async function tenant(scopes: string[] = ['all']) {
  const organizationId = uniqueOrganization();
  const { key } = await createTestKey({ organizationId, scopes: scopes as never });
  return { organizationId, key };
}

async function register(key: string, path: string, body: Record<string, unknown> = {}): Promise<Created> {
  const response = await write(key, 'POST', '/v1/webhooks/endpoints', { url: receiver.url(path), ...body });
  const created = (await response.json()) as Created;
  expect(response.status, json(created)).toBe(201);
  expect(response.headers.get('location')).toBe(`/v1/webhooks/endpoints/${created.id}`);
  receiver.trust(path, created.secret);
  return created;
}

const uniquePath = (name: string) => `/${name}/${randomUUID()}`;

async function deliveriesOf(
  key: string,
  endpointId: string,
  query = '',
): Promise<Array<{ eventId: string; attempt: number; status: string; responseStatus: number | null; nextAttemptAt: string | null }>> {
  const response = await callApi(`/v1/webhooks/endpoints/${endpointId}/deliveries${query}`, { key });
  const body = (await response.json()) as { data: never[] };
  expect(response.status, json(body)).toBe(200);
  return body.data;
}

async function eventually<T>(probe: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('delivery', () => {
  it('delivers each subscribed type, signed, with the envelope byte for byte as the feed serves it, and nothing else', async () => {
    const { organizationId, key } = await tenant();
    const path = uniquePath('types');
    const subscribed: EventType[] = ['item.created', 'stock.changed'];
    await register(key, path, { eventTypes: subscribed });
    await commit(
      organizationId,
      EVENT_TYPES.map((type) => eventDraft(type)),
    );
    const received = await receiver.waitFor(path, subscribed.length);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(receiver.deliveries(path)).toHaveLength(subscribed.length);
    const feed = await callApi('/v1/events', { key });
    const feedText = await feed.text();
    for (const delivery of received) {
      expect(delivery.verifiedWith).toHaveLength(1);
      const envelope = JSON.parse(delivery.body) as { id: string; type: EventType };
      expect(subscribed).toContain(envelope.type);
      expect(delivery.headers['webhook-id']).toBe(envelope.id);
      expect(delivery.headers['content-type']).toMatch(/^application\/json/);
      // The feed page is `{"data":[<envelope>,…],…}`: each delivered body appears in it verbatim.
      expect(feedText).toContain(delivery.body);
    }
  });

  it('an endpoint gets only the events committed after it was created', async () => {
    const { organizationId, key } = await tenant();
    await commit(organizationId, [eventDraft('item.created')]);
    const path = uniquePath('after-creation');
    await register(key, path);
    const { events } = await commit(organizationId, [eventDraft('item.updated')]);
    const [delivery] = await receiver.waitFor(path, 1);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(receiver.deliveries(path)).toHaveLength(1);
    expect(delivery?.headers['webhook-id']).toBe(events[0]?.id);
  });

  it('retries after a 500: the 200 of the second attempt, both attempts in the log', async () => {
    const { organizationId, key } = await tenant();
    const path = uniquePath('retry');
    receiver.answer(path, (_delivery, index) => ({ status: index === 0 ? 500 : 200 }));
    const endpoint = await register(key, path);
    const { events } = await commit(organizationId, [eventDraft('low-stock')]);
    const [first, second] = await receiver.waitFor(path, 2);
    expect(first?.headers['webhook-id']).toBe(events[0]?.id);
    expect(second?.headers['webhook-id']).toBe(events[0]?.id);
    const log = await eventually(
      () => deliveriesOf(key, endpoint.id),
      (entries) => entries.length === 2 && entries.every((entry) => entry.status !== 'pending'),
    );
    // Newest first.
    expect(log.map((entry) => [entry.attempt, entry.status, entry.responseStatus])).toEqual([
      [2, 'succeeded', 200],
      [1, 'failed', 500],
    ]);
    expect(log[1]?.nextAttemptAt).not.toBeNull();
    expect(await deliveriesOf(key, endpoint.id, '?status=failed')).toHaveLength(1);
    expect(await deliveriesOf(key, endpoint.id, `?eventId=${events[0]?.id}`)).toHaveLength(2);
  });

  it('a 410 disables the endpoint at once (gone), with its audit entry, and nothing more is sent', async () => {
    const { organizationId, key } = await tenant();
    const path = uniquePath('gone');
    receiver.answer(path, { status: 410 });
    const endpoint = await register(key, path);
    await commit(organizationId, [eventDraft('item.created')]);
    await receiver.waitFor(path, 1);
    const read = await eventually(
      async () => (await (await callApi(`/v1/webhooks/endpoints/${endpoint.id}`, { key })).json()) as Created,
      (body) => body.status === 'disabled',
    );
    expect(read).toMatchObject({ status: 'disabled', disabledReason: 'gone' });
    const audit = (await (await callApi('/v1/audit/events?kind=webhook-endpoint.disabled', { key })).json()) as { data: Array<{ target: { id: string } }> };
    expect(audit.data.map((entry) => entry.target.id)).toContain(endpoint.id);
    await commit(organizationId, [eventDraft('item.created')]);
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(receiver.deliveries(path)).toHaveLength(1);
  });

  it('a hanging endpoint does not hold a healthy one (delivered within 5 s)', async () => {
    const { organizationId, key } = await tenant();
    const hanging = uniquePath('hanging');
    const healthy = uniquePath('healthy');
    receiver.answer(hanging, { hang: true });
    await register(key, hanging);
    await register(key, healthy);
    const started = Date.now();
    await commit(organizationId, [eventDraft('item.created'), eventDraft('item.updated'), eventDraft('stock.changed')]);
    await receiver.waitFor(healthy, 3, 5_000);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(receiver.deliveries(hanging).length).toBeGreaterThan(0);
  });

  it('during a rotation the old and the new secret both verify; the new one is shown once', async () => {
    const { organizationId, key } = await tenant();
    const path = uniquePath('rotation');
    const endpoint = await register(key, path);
    const rotation = await write(key, 'POST', `/v1/webhooks/endpoints/${endpoint.id}/secret-rotations`);
    const { secret } = (await rotation.json()) as { secret: string };
    expect(rotation.status).toBe(200);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    receiver.trust(path, secret);
    await commit(organizationId, [eventDraft('item.created')]);
    const [delivery] = await receiver.waitFor(path, 1);
    expect(delivery?.verifiedWith.sort()).toEqual([endpoint.secret, secret].sort());
    expect(String(delivery?.headers['webhook-signature']).split(' ')).toHaveLength(2);
    const read = await callApi(`/v1/webhooks/endpoints/${endpoint.id}`, { key });
    expect(await read.text()).not.toContain('whsec_');
  });

  it('replays the events after an event id, in feed order', async () => {
    const { organizationId, key } = await tenant();
    const path = uniquePath('replay');
    const endpoint = await register(key, path, { eventTypes: ['item.created'] });
    const { events } = await commit(organizationId, [
      eventDraft('item.created'),
      eventDraft('item.updated'),
      eventDraft('item.created'),
      eventDraft('item.created'),
    ]);
    await receiver.waitFor(path, 3);
    const replay = await write(key, 'POST', `/v1/webhooks/endpoints/${endpoint.id}/replays`, { afterEventId: events[0]?.id });
    expect(replay.status, await replay.clone().text()).toBe(202);
    const all = await receiver.waitFor(path, 5);
    const replayed = all
      .slice(3)
      .map((delivery) => delivery.headers['webhook-id'])
      .sort();
    expect(replayed).toEqual([events[2]?.id, events[3]?.id].sort());
    await expectProblem(
      await write(key, 'POST', `/v1/webhooks/endpoints/${endpoint.id}/replays`, { afterEventId: 'evt_0000000000ZZZZZZZZZZZZZZZZ' }),
      400,
      'customer-api.events.unknown-checkpoint',
    );
  });

  it('deleting an endpoint stops its attempts', async () => {
    const { organizationId, key } = await tenant();
    const path = uniquePath('deleted');
    receiver.answer(path, { status: 500 });
    const endpoint = await register(key, path);
    await commit(organizationId, [eventDraft('item.created')]);
    await receiver.waitFor(path, 1);
    const deleted = await write(key, 'DELETE', `/v1/webhooks/endpoints/${endpoint.id}`);
    expect(deleted.status).toBe(204);
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(receiver.deliveries(path)).toHaveLength(1);
    await expectProblem(await callApi(`/v1/webhooks/endpoints/${endpoint.id}`, { key }), 404, 'customer-api.webhooks.not-found');
  });

  it("one tenant never receives, sees or changes another tenant's events or endpoints", async () => {
    const a = await tenant();
    const b = await tenant();
    const pathA = uniquePath('tenant-a');
    const endpointA = await register(a.key, pathA);
    await commit(b.organizationId, [eventDraft('item.created')]);
    const { events } = await commit(a.organizationId, [eventDraft('item.created')]);
    const [delivery] = await receiver.waitFor(pathA, 1);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(receiver.deliveries(pathA)).toHaveLength(1);
    expect(delivery?.headers['webhook-id']).toBe(events[0]?.id);
    await expectProblem(await callApi(`/v1/webhooks/endpoints/${endpointA.id}`, { key: b.key }), 404, 'customer-api.webhooks.not-found');
    await expectProblem(await write(b.key, 'DELETE', `/v1/webhooks/endpoints/${endpointA.id}`), 404, 'customer-api.webhooks.not-found');
    const list = (await (await callApi('/v1/webhooks/endpoints', { key: b.key })).json()) as { data: unknown[] };
    expect(list.data).toEqual([]);
  });
});

describe('management', () => {
  it('lists, reads and replaces endpoints; never shows a secret again', async () => {
    const { key } = await tenant();
    const endpoint = await register(key, uniquePath('manage'), { description: 'orders', eventTypes: ['low-stock'] });
    const list = await callApi('/v1/webhooks/endpoints', { key });
    const listText = await list.text();
    expect(listText).not.toContain('whsec_');
    expect((JSON.parse(listText) as { data: Array<{ id: string }> }).data.map((entry) => entry.id)).toEqual([endpoint.id]);
    const replaced = await write(key, 'PUT', `/v1/webhooks/endpoints/${endpoint.id}`, { url: receiver.url('/elsewhere'), enabled: false });
    expect(await replaced.json()).toMatchObject({
      id: endpoint.id,
      url: receiver.url('/elsewhere'),
      eventTypes: [],
      description: '',
      status: 'disabled',
      disabledReason: 'manual',
    });
  });

  it('refuses unknown event types, and URLs that are not public https (at registration)', async () => {
    const { key } = await tenant();
    await expectProblem(
      await write(key, 'POST', '/v1/webhooks/endpoints', { url: 'https://hooks.example.com/a', eventTypes: ['item.deleted'] }),
      400,
      'customer-api.validation.failed',
    );
    for (const url of [
      'http://hooks.example.com/a',
      'https://user:pw@hooks.example.com/a',
      'https://10.0.0.1/a',
      'https://[::1]/a',
      'https://localhost/a',
      'http://10.0.0.1:8080/a',
      'http://169.254.169.254/latest',
    ]) {
      const response = await write(key, 'POST', '/v1/webhooks/endpoints', { url });
      await expectProblem(response, 400, 'customer-api.validation.failed');
    }
  });

  it('allows 16 endpoints per organization, also to concurrent creates', async () => {
    const { key } = await tenant();
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, index) => write(key, 'POST', '/v1/webhooks/endpoints', { url: `https://hooks${index}.example.com/a` })),
    );
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(16);
    for (const response of responses.filter((candidate) => candidate.status !== 201)) await expectProblem(response, 409, 'customer-api.webhooks.limit-reached');
  });

  it('asks for webhooks:read to read and webhooks:write to change', async () => {
    const reader = await tenant(['webhooks:read']);
    expect((await callApi('/v1/webhooks/endpoints', { key: reader.key })).status).toBe(200);
    await expectProblem(
      await write(reader.key, 'POST', '/v1/webhooks/endpoints', { url: 'https://hooks.example.com/a' }),
      403,
      'customer-api.auth.insufficient-scope',
    );
    const other = await tenant(['events:read']);
    await expectProblem(await callApi('/v1/webhooks/endpoints', { key: other.key }), 403, 'customer-api.auth.insufficient-scope');
  });
});
