import { spawn, spawnSync } from 'node:child_process';
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { once } from 'node:events';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { createServer as createTlsServer, type Server as TlsServer } from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import { createDnsResolve } from '../../../lib/webhooks/transport/webhook-dns.ts';
import { createWebhookSender } from '../../../lib/webhooks/transport/webhook-sender.ts';

/**
 * The delivery worker's DNS and address fallback (docs/webhooks.md "Fairness") against real
 * sockets on 127.0.0.1: a UDP DNS server that answers A and AAAA, one that never answers, and a
 * TLS listener that records connections.
 */

const closers: (() => void)[] = [];
afterEach(() => {
  for (const close of closers.splice(0)) close();
});

const A_ANSWER = [93, 184, 215, 14];
const AAAA_ANSWER = '2606:2800:021f:cb07:6820:80da:af6b:8b2c';
const TYPE_A = 1;
const TYPE_AAAA = 28;

/** A DNS server on 127.0.0.1 that answers every A and AAAA question with one fixed address, or (`silent`) never answers. */
async function dnsServer(behaviour: { silent: boolean }): Promise<{ server: string; questions: number }> {
  const socket: UdpSocket = createSocket('udp4');
  const state = { server: '', questions: 0 };
  socket.on('message', (query, peer) => {
    state.questions += 1;
    if (behaviour.silent) return;
    const questionEnd = query.indexOf(0, 12) + 5;
    const type = query.readUInt16BE(questionEnd - 4);
    const rdata = type === TYPE_A ? Buffer.from(A_ANSWER) : type === TYPE_AAAA ? Buffer.from(AAAA_ANSWER.replaceAll(':', ''), 'hex') : undefined;
    const header = Buffer.alloc(12);
    query.copy(header, 0, 0, 2);
    header.writeUInt16BE(0x8180, 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(rdata ? 1 : 0, 6);
    const answer = rdata
      ? Buffer.concat([Buffer.from([0xc0, 0x0c]), u16(type), u16(1), Buffer.from([0, 0, 0, 60]), u16(rdata.length), rdata])
      : Buffer.alloc(0);
    socket.send(Buffer.concat([header, query.subarray(12, questionEnd), answer]), peer.port, peer.address);
  });
  socket.bind(0, '127.0.0.1');
  await once(socket, 'listening');
  closers.push(() => socket.close());
  state.server = `127.0.0.1:${(socket.address() as AddressInfo).port}`;
  return state;
}

function u16(value: number): Buffer {
  const buffer = Buffer.alloc(2);
  buffer.writeUInt16BE(value);
  return buffer;
}

describe('createDnsResolve', () => {
  it('asks for A and AAAA and answers both families, IPv4 first', async () => {
    const dns = await dnsServer({ silent: false });
    const resolve = createDnsResolve({ servers: [dns.server], timeoutMs: 1000 });
    expect(await resolve('hooks.example.test')).toEqual(['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c']);
  });

  it('gives up on a server that never answers after its timeout', async () => {
    const dns = await dnsServer({ silent: true });
    const resolve = createDnsResolve({ servers: [dns.server], timeoutMs: 300 });
    const startedAt = performance.now();
    await expect(resolve('hooks.example.test')).rejects.toMatchObject({ code: 'ETIMEOUT' });
    expect(performance.now() - startedAt).toBeLessThan(2000);
  });

  it('is cancelled by its deadline before its own timeout', async () => {
    const dns = await dnsServer({ silent: true });
    const resolve = createDnsResolve({ servers: [dns.server], timeoutMs: 10_000 });
    const startedAt = performance.now();
    await expect(resolve('hooks.example.test', AbortSignal.timeout(200))).rejects.toMatchObject({ code: 'ECANCELLED' });
    expect(performance.now() - startedAt).toBeLessThan(2000);
  });

  it('makes a sender attempt whose name server never answers fail within the query timeout, counted as a timeout', async () => {
    const dns = await dnsServer({ silent: true });
    const sender = createWebhookSender({ allowLoopback: false, timeoutMs: 5000, resolve: createDnsResolve({ servers: [dns.server], timeoutMs: 300 }) });
    const result = await sender.send({ url: 'https://hooks.example.test/in', body: '{}', headers: {} });
    expect(result).toMatchObject({
      outcome: 'failed',
      timedOut: true,
      error: expect.stringMatching(/^refused: DNS lookup of hooks\.example\.test failed \(.*ETIMEOUT/),
    });
    expect(result.durationMs).toBeLessThan(2000);
  });

  it('does not let hanging lookups hold up the next ones (no shared thread pool)', async () => {
    const silent = await dnsServer({ silent: true });
    const answering = await dnsServer({ silent: false });
    const stopHanging = new AbortController();
    const hanging = Array.from({ length: 8 }, (_, index) =>
      createDnsResolve({ servers: [silent.server], timeoutMs: 5000 })(`slow-${index}.example.test`, stopHanging.signal).catch(() => undefined),
    );

    const startedAt = performance.now();
    const addresses = await createDnsResolve({ servers: [answering.server], timeoutMs: 1000 })('hooks.example.test');

    expect(addresses).toContain('93.184.215.14');
    expect(performance.now() - startedAt).toBeLessThan(1000);
    expect(silent.questions).toBeGreaterThanOrEqual(8);
    stopHanging.abort();
    await Promise.all(hanging);
  });
});

/**
 * A listener on 127.0.0.1 whose accept queue is full (python3: a socket that listens with a
 * backlog of 0 and never accepts, then a few connections fill it), so a further connection
 * neither succeeds nor is refused: the kernel drops its SYN, as a host that does not answer would.
 */
async function unansweringListener(): Promise<number> {
  const python = spawn('python3', [
    '-c',
    'import socket,time\ns=socket.socket()\ns.bind(("127.0.0.1",0))\ns.listen(0)\nprint(s.getsockname()[1],flush=True)\ntime.sleep(30)',
  ]);
  closers.push(() => python.kill());
  const [output] = (await once(python.stdout, 'data')) as [Buffer];
  const port = Number(String(output).trim());
  const fillers = [0, 1, 2].map(() => connect(port, '127.0.0.1').on('error', () => undefined));
  closers.push(() => fillers.forEach((filler) => filler.destroy()));
  await new Promise((resolve) => setTimeout(resolve, 300));
  return port;
}

const hasPython = spawnSync('python3', ['--version']).status === 0;

describe('webhook sender: the next vetted address', () => {
  it.skipIf(!hasPython)('connects to the second address when the first does not answer within the connect timeout', async () => {
    // Prepare: 127.0.0.1 drops the connection; a TLS listener on ::1 at the same port records it.
    const port = await unansweringListener();
    const seen = { connections: 0 };
    const tls: TlsServer = createTlsServer({ SNICallback: (_name, callback) => callback(new Error('test server: no certificate')) });
    tls.on('connection', (_socket: Socket) => (seen.connections += 1));
    tls.on('tlsClientError', () => undefined);
    tls.listen(port, '::1');
    await once(tls, 'listening');
    closers.push(() => tls.close());
    const sender = createWebhookSender({ allowLoopback: true, timeoutMs: 5000, connectTimeoutMs: 500, resolve: () => Promise.resolve(['127.0.0.1', '::1']) });

    // Act
    const result = await sender.send({ url: `https://hooks.example.test:${port}/in`, body: '{}', headers: {} });

    // Assess: given up on the first after 0.5 s, connected to the second, well within the deadline
    expect(seen.connections).toBe(1);
    expect(result.timedOut).toBeUndefined();
    expect(result.durationMs).toBeGreaterThanOrEqual(500);
    expect(result.durationMs).toBeLessThan(5000);
  });

  it('connects to the second address when the first refuses the connection', async () => {
    // Prepare: a TLS listener on 127.0.0.1 only (it holds no certificate, so the attempt fails
    // after connecting); the host resolves to ::1 first, where nothing listens on that port.
    const seen = { connections: 0 };
    const tls: TlsServer = createTlsServer({ SNICallback: (_name, callback) => callback(new Error('test server: no certificate')) });
    tls.on('connection', (_socket: Socket) => (seen.connections += 1));
    tls.on('tlsClientError', () => undefined);
    tls.listen(0, '127.0.0.1');
    await once(tls, 'listening');
    closers.push(() => tls.close());
    const port = (tls.address() as AddressInfo).port;
    const sender = createWebhookSender({ allowLoopback: true, timeoutMs: 3000, resolve: () => Promise.resolve(['::1', '127.0.0.1']) });

    // Act
    const result = await sender.send({ url: `https://hooks.example.test:${port}/in`, body: '{}', headers: {} });

    // Assess: the second address got the connection; the failure is the TLS one, not the refusal
    expect(seen.connections).toBe(1);
    expect(result).toMatchObject({ outcome: 'failed', responseStatus: null });
    expect(result.error).not.toMatch(/could not connect|refused|ECONNREFUSED/);
  });

  it.skipIf(!hasPython)('counts an address that never answers as a timeout for the circuit breaker, when no address answers', async () => {
    const port = await unansweringListener();
    const sender = createWebhookSender({ allowLoopback: true, timeoutMs: 5000, connectTimeoutMs: 300, resolve: () => Promise.resolve(['127.0.0.1']) });
    const result = await sender.send({ url: `https://hooks.example.test:${port}/in`, body: '{}', headers: {} });
    expect(result).toMatchObject({
      outcome: 'failed',
      timedOut: true,
      error: `could not connect to hooks.example.test (127.0.0.1: no connection within 300 ms)`,
    });
  });

  it('names every address when none can be connected to', async () => {
    const sender = createWebhookSender({ allowLoopback: true, timeoutMs: 3000, resolve: () => Promise.resolve(['::1', '127.0.0.1']) });
    const result = await sender.send({ url: 'https://hooks.example.test:1/in', body: '{}', headers: {} });
    expect(result).toMatchObject({ outcome: 'failed', responseStatus: null });
    expect(result.error).toMatch(/^could not connect to hooks\.example\.test \(::1: .*; 127\.0\.0\.1: .*ECONNREFUSED/);
    expect(result.timedOut).toBeUndefined();
  });
});
