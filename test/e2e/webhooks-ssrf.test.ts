import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callApi, createTestKey, uniqueOrganization } from '../support/api.ts';
import { commit, eventDraft } from '../support/events.ts';
import { TEST_WEBHOOK_RESOLVE } from '../support/global-stack.ts';

/**
 * The address rule at delivery (docs/webhooks.md "Verifying deliveries"), over HTTP against
 * `npm start`: endpoints whose host names pass registration but resolve, at the attempt, to an
 * address that is not public. The test stack's delivery worker answers those names from the fixed
 * map of WEBHOOK_TEST_RESOLVE (test/support/global-stack.ts), every other name through DNS.
 * Listeners on 127.0.0.1 and 127.0.0.2, on the port every URL names, count the connections that
 * reach them: a loopback endpoint (admitted by WEBHOOK_ALLOW_LOOPBACK=1) shows they would see one.
 */

interface Listener {
  server: Server;
  connections: number;
  paths: string[];
}

async function listen(host: string, port: number): Promise<Listener> {
  const listener: Listener = {
    server: createServer((request, response) => (listener.paths.push(request.url ?? ''), response.writeHead(200).end('ok'))),
    connections: 0,
    paths: [],
  };
  listener.server.on('connection', () => listener.connections++);
  await new Promise<void>((resolve, reject) => {
    listener.server.once('error', reject);
    listener.server.listen(port, host, () => resolve());
  });
  return listener;
}

let alias: Listener;
let loopback: Listener;
let port: number;
beforeAll(async () => {
  alias = await listen('127.0.0.2', 0);
  port = (alias.server.address() as AddressInfo).port;
  loopback = await listen('127.0.0.1', port);
});
afterAll(async () => {
  for (const { server } of [alias, loopback]) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

interface LogEntry {
  attempt: number;
  status: string;
  responseStatus: number | null;
  error: string | null;
}

async function register(key: string, url: string): Promise<string> {
  const response = await callApi('/v1/webhooks/endpoints', {
    method: 'POST',
    key,
    headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
    body: JSON.stringify({ url }),
  });
  const body = (await response.json()) as { id: string };
  expect(response.status, JSON.stringify(body)).toBe(201);
  return body.id;
}

async function settledAttempts(key: string, endpointId: string, timeoutMs = 15_000): Promise<LogEntry[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const response = await callApi(`/v1/webhooks/endpoints/${endpointId}/deliveries`, { key });
    const { data } = (await response.json()) as { data: LogEntry[] };
    const settled = data.filter((entry) => entry.status !== 'pending');
    if (settled.length > 0 || Date.now() > deadline) return settled;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('refusals at delivery', () => {
  it('refuses a host that resolves to a private address, or to any loopback address but 127.0.0.1, and names the address; no connection reaches a local listener', async () => {
    const organizationId = uniqueOrganization();
    const { key } = await createTestKey({ organizationId, scopes: ['all'] as never });
    const refused = [
      { name: 'private', host: TEST_WEBHOOK_RESOLVE.private.host, address: '10.0.0.5', reason: /private/ },
      // The first answer is public: only a check of every address refuses it.
      { name: 'mixed', host: TEST_WEBHOOK_RESOLVE.mixed.host, address: '127.0.0.2', reason: /loopback/ },
      { name: 'loopback alias', host: TEST_WEBHOOK_RESOLVE.loopbackAlias.host, address: '127.0.0.2', reason: /loopback/ },
    ];
    const endpoints = await Promise.all(
      refused.map(async (target) => ({ ...target, id: await register(key, `https://${target.host}:${port}/${randomUUID()}`) })),
    );
    const controlPath = `/control/${randomUUID()}`;
    await register(key, `http://127.0.0.1:${port}${controlPath}`);

    await commit(organizationId, [eventDraft('item.created')]);

    for (const endpoint of endpoints) {
      const attempts = await settledAttempts(key, endpoint.id);
      expect(attempts.length, endpoint.name).toBeGreaterThan(0);
      for (const attempt of attempts) {
        expect(attempt, endpoint.name).toMatchObject({ status: 'failed', responseStatus: null });
        expect(attempt.error, endpoint.name).toContain(`refused: ${endpoint.host} resolves to ${endpoint.address}, which is not public`);
        expect(attempt.error, endpoint.name).toMatch(endpoint.reason);
      }
    }
    // The loopback endpoint got the same event: the listeners would have seen a refused attempt's connection.
    const deadline = Date.now() + 15_000;
    while (!loopback.paths.includes(controlPath) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(loopback.paths).toEqual([controlPath]);
    expect(loopback.connections).toBe(1);
    expect(alias.connections).toBe(0);
  });
});
