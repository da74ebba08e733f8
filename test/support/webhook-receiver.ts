import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/**
 * A webhook receiver on 127.0.0.1 for the e2e suites: every request is verified with the
 * `standardwebhooks` library against the secrets it is told about (a request that verifies with
 * none is recorded as unverified), and each path answers as its test asks (a status, or never).
 */

export interface ReceivedDelivery {
  path: string;
  body: string;
  headers: IncomingHttpHeaders;
  /** Which of the path's secrets verified the signature (each one checked alone). */
  verifiedWith: string[];
  receivedAt: number;
}

export type Behaviour = { status: number } | { hang: true } | ((delivery: ReceivedDelivery, index: number) => { status: number } | { hang: true });

export interface Receiver {
  url(path: string): string;
  /** The secrets a path's requests must verify with; its deliveries list which did. */
  trust(path: string, ...secrets: string[]): void;
  answer(path: string, behaviour: Behaviour): void;
  deliveries(path: string): ReceivedDelivery[];
  waitFor(path: string, count: number, timeoutMs?: number): Promise<ReceivedDelivery[]>;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const secrets = new Map<string, string[]>();
  const behaviours = new Map<string, Behaviour>();
  const received = new Map<string, ReceivedDelivery[]>();
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '/';
      const body = Buffer.concat(chunks).toString('utf8');
      const headers = request.headers;
      const verifiedWith = (secrets.get(path) ?? []).filter((secret) => {
        try {
          new Webhook(secret).verify(body, {
            'webhook-id': String(headers['webhook-id']),
            'webhook-timestamp': String(headers['webhook-timestamp']),
            'webhook-signature': String(headers['webhook-signature']),
          });
          return true;
        } catch {
          return false;
        }
      });
      const delivery: ReceivedDelivery = { path, body, headers, verifiedWith, receivedAt: Date.now() };
      const list = received.get(path) ?? [];
      list.push(delivery);
      received.set(path, list);
      const behaviour = behaviours.get(path) ?? { status: 200 };
      const answer = typeof behaviour === 'function' ? behaviour(delivery, list.length - 1) : behaviour;
      if ('hang' in answer) return; // never answers; the sender's timeout ends it
      response.writeHead(answer.status, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    trust: (path, ...list) => void secrets.set(path, [...(secrets.get(path) ?? []), ...list]),
    answer: (path, behaviour) => void behaviours.set(path, behaviour),
    deliveries: (path) => [...(received.get(path) ?? [])],
    async waitFor(path, count, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      while ((received.get(path)?.length ?? 0) < count) {
        if (Date.now() > deadline) throw new Error(`${path}: ${received.get(path)?.length ?? 0} of ${count} deliveries within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      return [...(received.get(path) ?? [])];
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
