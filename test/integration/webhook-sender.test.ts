import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { createWebhookSender, WEBHOOK_USER_AGENT } from '../../lib/webhooks/transport/webhook-sender.ts';

/**
 * The outbound webhook adapter against real HTTP servers on 127.0.0.1 (docs/webhooks.md
 * "Verifying deliveries"). Test resolvers stand in for DNS so that a host name can be made to
 * answer a private address, or a different address on each lookup.
 */

interface Received {
  method: string | undefined;
  headers: IncomingMessage['headers'];
  body: string;
}

interface TestServer {
  port: number;
  url: string;
  connections: number;
  requests: Received[];
}

const servers: Server[] = [];

afterEach(async () => {
  for (const server of servers.splice(0)) {
    if ('closeAllConnections' in server) server.closeAllConnections();
    server.close();
  }
});

async function httpServer(respond: (response: ServerResponse, request: IncomingMessage) => void): Promise<TestServer> {
  const state: TestServer = { port: 0, url: '', connections: 0, requests: [] };
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      state.requests.push({ method: request.method, headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      respond(response, request);
    });
  });
  server.on('connection', () => (state.connections += 1));
  servers.push(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  state.port = (server.address() as AddressInfo).port;
  state.url = `http://127.0.0.1:${state.port}/hook`;
  return state;
}

const body = JSON.stringify({
  id: 'evt_1',
  type: 'item.created',
  version: 1,
  occurredAt: '2026-11-26T12:00:00.000Z',
  organizationId: 'org_1',
  data: { item: { sku: 'Ä-1' } },
});
const headers = { 'webhook-id': 'evt_1', 'webhook-timestamp': '1790000000', 'webhook-signature': 'v1,c2lnbmF0dXJl' };
const loopback = createWebhookSender({ allowLoopback: true });

describe('webhook sender: outcomes', () => {
  it('POSTs the body byte for byte with the signature headers, and a 200 succeeds', async () => {
    // Prepare
    const server = await httpServer((response) => response.end('ok'));

    // Act
    const result = await loopback.send({ url: server.url, body, headers });

    // Assess
    expect(result).toEqual({ outcome: 'succeeded', responseStatus: 200, durationMs: expect.any(Number), error: null, retryAfterSeconds: null });
    expect(server.requests).toHaveLength(1);
    const [received] = server.requests;
    expect(received?.method).toBe('POST');
    expect(received?.body).toBe(body);
    expect(received?.headers).toMatchObject({
      ...headers,
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      'user-agent': WEBHOOK_USER_AGENT,
      host: `127.0.0.1:${server.port}`,
    });
  });

  it('reports a 500 as failed with its status', async () => {
    const server = await httpServer((response) => response.writeHead(500).end('boom'));
    const result = await loopback.send({ url: server.url, body, headers });
    expect(result).toMatchObject({ outcome: 'failed', responseStatus: 500, error: 'HTTP 500', retryAfterSeconds: null });
  });

  it('reports a 410 as gone', async () => {
    const server = await httpServer((response) => response.writeHead(410).end());
    const result = await loopback.send({ url: server.url, body, headers });
    expect(result).toMatchObject({ outcome: 'gone', responseStatus: 410 });
  });

  it('does not follow a 302: one request, a failed attempt naming the redirect', async () => {
    // Prepare
    const target = await httpServer((response) => response.end('should never be reached'));
    const server = await httpServer((response) => response.writeHead(302, { location: target.url }).end());

    // Act
    const result = await loopback.send({ url: server.url, body, headers });

    // Assess
    expect(result).toMatchObject({ outcome: 'failed', responseStatus: 302, error: `HTTP 302: redirect to ${target.url} not followed` });
    expect([server.requests.length, target.connections]).toEqual([1, 0]);
  });

  it.each([
    [429, '7', 7],
    [502, '30', 30],
    [504, new Date(Date.now() + 60_000).toUTCString(), 60],
    [503, '30', null],
  ])('on %i with Retry-After %s reports a wait of %s seconds', async (status, retryAfter, expected) => {
    const server = await httpServer((response) => response.writeHead(status, { 'retry-after': retryAfter }).end());
    const result = await loopback.send({ url: server.url, body, headers });
    expect(result.outcome).toBe('failed');
    if (expected === null) expect(result.retryAfterSeconds).toBeNull();
    else expect(result.retryAfterSeconds).toBeGreaterThanOrEqual(expected - 1);
    if (expected !== null) expect(result.retryAfterSeconds).toBeLessThanOrEqual(expected);
  });

  it('aborts a hanging endpoint at the deadline', async () => {
    // Prepare: the server reads the request and never answers
    const server = await httpServer(() => undefined);
    const sender = createWebhookSender({ allowLoopback: true, timeoutMs: 300 });

    // Act
    const result = await sender.send({ url: server.url, body, headers });

    // Assess
    expect(result).toMatchObject({ outcome: 'failed', responseStatus: null, error: 'timed out after 300 ms' });
    expect(result.durationMs).toBeGreaterThanOrEqual(290);
    expect(result.durationMs).toBeLessThan(2000);
  });

  it('stops after 4 KiB of a 1 MB response that never ends, and closes the connection', async () => {
    // Prepare: 1 MB written, the response never ended; only stopping early can finish the attempt
    let closed = false;
    const server = await httpServer((response, request) => {
      request.socket.on('close', () => (closed = true));
      response.writeHead(200, { 'content-type': 'text/plain' });
      response.write(Buffer.alloc(1024 * 1024, 'x'));
    });
    const sender = createWebhookSender({ allowLoopback: true, timeoutMs: 5000 });

    // Act
    const result = await sender.send({ url: server.url, body, headers });

    // Assess
    expect(result).toMatchObject({ outcome: 'succeeded', responseStatus: 200 });
    expect(result.durationMs).toBeLessThan(2000);
    await expect.poll(() => closed).toBe(true);
  });

  it('fails an attempt whose connection is refused, naming the cause', async () => {
    // Prepare: a port with nothing listening
    const server = await httpServer(() => undefined);
    servers.pop()!.close();
    await new Promise((resolve) => setTimeout(resolve, 50));

    // Act
    const result = await loopback.send({ url: server.url, body, headers });

    // Assess
    expect(result).toMatchObject({ outcome: 'failed', responseStatus: null, error: expect.stringContaining('ECONNREFUSED') });
  });
});

describe('webhook sender: address checks at each attempt', () => {
  const hostUrl = (port: number) => `https://hooks.example.test:${port}/hook`;

  it.each([
    ['a private address', ['127.0.0.1'], false, '127.0.0.1, which is not public (loopback)'],
    ['a public and a private address', ['93.184.216.34', '127.0.0.1'], false, '127.0.0.1, which is not public (loopback)'],
    ['a private address besides the admitted loopback', ['127.0.0.1', '10.0.0.7'], true, '10.0.0.7, which is not public (private)'],
    ['the metadata address', ['169.254.169.254'], true, '169.254.169.254, which is not public (cloud metadata)'],
    ['a mapped loopback address', ['::ffff:127.0.0.1'], true, '::ffff:127.0.0.1, which is not public (IPv4-mapped form of 127.0.0.1 (loopback))'],
  ])('refuses a host that resolves to %s, without connecting', async (_name, answer, allowLoopback, reason) => {
    // Prepare: a server on 127.0.0.1 that any connection to the host's port would reach
    const server = await httpServer((response) => response.end());
    const lookups: string[] = [];
    const sender = createWebhookSender({ allowLoopback, resolve: async (host) => (lookups.push(host), answer) });

    // Act
    const result = await sender.send({ url: hostUrl(server.port), body, headers });

    // Assess
    expect(result).toMatchObject({ outcome: 'failed', responseStatus: null, error: `refused: hooks.example.test resolves to ${reason}` });
    expect(lookups).toEqual(['hooks.example.test']);
    expect(server.connections).toBe(0);
  });

  it('refuses a URL the registration rules refuse, before any lookup', async () => {
    // Prepare
    const lookups: string[] = [];
    const sender = createWebhookSender({ allowLoopback: false, resolve: async (host) => (lookups.push(host), ['93.184.216.34']) });

    // Act
    const results = await Promise.all(
      ['http://hooks.example.test/', 'http://127.0.0.1:9/', 'https://localhost/'].map((url) => sender.send({ url, body, headers })),
    );

    // Assess
    expect(results.map((result) => [result.outcome, result.error?.slice(0, 26)])).toEqual([
      ['failed', 'refused: The endpoint URL '],
      ['failed', 'refused: The endpoint URL '],
      ['failed', 'refused: The endpoint URL '],
    ]);
    expect(lookups).toEqual([]);
  });

  it('counts a lookup that never answers against the deadline', async () => {
    // Prepare
    const sender = createWebhookSender({ allowLoopback: false, timeoutMs: 200, resolve: () => new Promise<string[]>(() => undefined) });

    // Act
    const result = await sender.send({ url: 'https://hooks.example.test/', body, headers });

    // Assess
    expect(result).toMatchObject({ outcome: 'failed', responseStatus: null, error: 'timed out after 200 ms' });
    expect(result.durationMs).toBeLessThan(2000);
  });

  it('reports a failed lookup as a failed attempt', async () => {
    const sender = createWebhookSender({
      allowLoopback: false,
      resolve: () => Promise.reject(Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' })),
    });
    const result = await sender.send({ url: 'https://hooks.example.test/', body, headers });
    expect(result).toMatchObject({ outcome: 'failed', error: 'refused: DNS lookup of hooks.example.test failed (getaddrinfo ENOTFOUND)' });
  });

  it('connects to the vetted address even when later lookups answer another (DNS rebinding), naming the URL host in TLS', async () => {
    // Prepare: a TLS listener on 127.0.0.1 that records the SNI name and then ends the handshake
    // (it holds no certificate); the resolver answers 127.0.0.1 once, then a private address.
    const seen: { connections: number; serverNames: string[] } = { connections: 0, serverNames: [] };
    const tls = createTlsServer({
      SNICallback: (serverName, callback) => {
        seen.serverNames.push(serverName);
        callback(new Error('test server: no certificate'));
      },
    });
    tls.on('connection', (_socket: Socket) => (seen.connections += 1));
    tls.on('tlsClientError', () => undefined);
    servers.push(tls as unknown as Server);
    tls.listen(0, '127.0.0.1');
    await once(tls, 'listening');
    const port = (tls.address() as AddressInfo).port;
    let calls = 0;
    const sender = createWebhookSender({ allowLoopback: true, resolve: async () => (++calls === 1 ? ['127.0.0.1'] : ['10.9.8.7']) });

    // Act
    const result = await sender.send({ url: hostUrl(port), body, headers });

    // Assess: one lookup, one connection to the vetted address, SNI = the URL's host
    expect(calls).toBe(1);
    expect(seen).toEqual({ connections: 1, serverNames: ['hooks.example.test'] });
    expect(result).toMatchObject({ outcome: 'failed', responseStatus: null });
    expect(result.error).not.toMatch(/^refused/);
  });
});

describe('webhook sender: kept-alive connections', () => {
  it('attempts to the same vetted address reuse one connection', async () => {
    // Prepare
    const server = await httpServer((response) => response.writeHead(204).end());
    const sender = createWebhookSender({ allowLoopback: true });

    // Act
    const results = [];
    for (let attempt = 0; attempt < 3; attempt += 1) results.push(await sender.send({ url: server.url, body, headers }));

    // Assess
    expect(results.map((result) => result.outcome)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect(server.requests).toHaveLength(3);
    expect(server.connections).toBe(1);
  });

  it('a kept-alive connection the server closed when the request arrived: sent again once on a new connection, and it succeeds', async () => {
    // Prepare: the server resets the second request that arrives on a connection
    const perConnection = new WeakMap<Socket, number>();
    const server = await httpServer((response) => response.writeHead(204).end());
    const [listening] = servers.slice(-1);
    listening?.prependListener('request', (request: IncomingMessage) => {
      const seen = (perConnection.get(request.socket) ?? 0) + 1;
      perConnection.set(request.socket, seen);
      if (seen === 2) request.socket.destroy();
    });
    const sender = createWebhookSender({ allowLoopback: true });

    // Act
    const first = await sender.send({ url: server.url, body, headers });
    const second = await sender.send({ url: server.url, body, headers });

    // Assess
    expect([first.outcome, second.outcome]).toEqual(['succeeded', 'succeeded']);
    expect(server.connections).toBe(2);
  });

  it('a response past 4 KiB closes its connection: the next attempt opens a new one', async () => {
    // Prepare
    const server = await httpServer((response) => response.writeHead(200, { 'content-type': 'text/plain' }).end(Buffer.alloc(64 * 1024, 'x')));
    const sender = createWebhookSender({ allowLoopback: true });

    // Act
    await sender.send({ url: server.url, body, headers });
    const next = await sender.send({ url: server.url, body, headers });

    // Assess
    expect(next).toMatchObject({ outcome: 'succeeded', responseStatus: 200 });
    expect(server.connections).toBe(2);
  });
});
