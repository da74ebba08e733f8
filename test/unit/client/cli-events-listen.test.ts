import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import type { CliContext } from '../../../client/cli/context.ts';
import { runCli } from '../../../client/cli/main.ts';
import { createInventoryClient } from '../../../client/index.ts';
import { fakeFeed, type FakeFeed } from './support/fake-feed.ts';

/** `events listen` in process against an in-memory feed and a real receiver on 127.0.0.1 (docs/client.md#cli). */

const closers: Array<() => void> = [];
afterEach(() => closers.splice(0).forEach((close) => close()));

async function receiver(status: number) {
  const received: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(status).end();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  closers.push(() => server.close());
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received };
}

/** The CLI with a feed that gains `arrivals` events at the first pause at the tail, stopped at the second pause. */
function listenContext(feed: FakeFeed, arrivals: number) {
  const out: string[] = [];
  const err: string[] = [];
  const stop = new AbortController();
  let pauses = 0;
  const cli: CliContext = {
    env: { INVENTORY_API_URL: 'http://api.test', INVENTORY_API_KEY: 'key' },
    stdout: { write: (text) => out.push(String(text)) },
    stderr: { write: (text) => err.push(text) },
    interactive: false,
    signal: stop.signal,
    createClient: (options) =>
      createInventoryClient({
        ...options,
        fetch: feed.fetch,
        sleep: async () => {
          pauses += 1;
          if (pauses === 1) feed.append(arrivals);
          else stop.abort();
        },
      }),
  };
  return { cli, out, err };
}

describe('events listen', () => {
  it('prints a secret, then forwards only the events after it started, signed with that secret', async () => {
    // Prepare: 250 events before the start (more than one page to skip), 2 arriving while it listens
    const feed = fakeFeed(250);
    const handler = await receiver(204);
    const { cli, out, err } = listenContext(feed, 2);

    // Act
    const code = await runCli(['events', 'listen', '--forward-to', handler.url], cli);

    // Assess
    expect(code).toBe(0);
    const [secretLine, ...lines] = out.join('').trim().split('\n');
    const secret = /^Webhook signing secret: (whsec_\S+)$/.exec(secretLine ?? '')?.[1];
    expect(secret).toBeDefined();
    const expected = feed.events.slice(250);
    expect(handler.received.map(({ body }) => body)).toEqual(expected.map((event) => JSON.stringify(event)));
    for (const { headers, body } of handler.received) {
      expect(new Webhook(secret!).verify(body, headers as Record<string, string>)).toEqual(JSON.parse(body));
      expect(headers['content-type']).toBe('application/json');
    }
    expect(lines).toEqual(expected.map((event) => expect.stringMatching(new RegExp(`^${event.id} low-stock → 204 \\(\\d+ ms\\)$`))));
    expect(err.join('')).toContain(`Forwarding events from now to ${handler.url}`);
    expect(err.at(-1)).toBe('2 events forwarded\n');
  });

  it('signs with --secret when given, and reports a handler error status on the line', async () => {
    // Prepare
    const secret = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const handler = await receiver(500);
    const { cli, out } = listenContext(fakeFeed(0), 1);

    // Act
    const code = await runCli(['events', 'listen', '--forward-to', handler.url, '--secret', secret], cli);

    // Assess
    expect(code).toBe(0);
    expect(out[0]).toBe(`Webhook signing secret: ${secret}\n`);
    expect(out[1]).toMatch(/^evt_000001 low-stock → 500 \(\d+ ms\)\n$/);
    expect(() => new Webhook(secret).verify(handler.received[0]!.body, handler.received[0]!.headers as Record<string, string>)).not.toThrow();
  });

  it('prints a failed forward and keeps listening when nothing answers', async () => {
    // Prepare: a port that was just closed
    const handler = await receiver(200);
    closers.splice(0).forEach((close) => close());
    const { cli, out } = listenContext(fakeFeed(0), 2);

    // Act
    const code = await runCli(['events', 'listen', '--forward-to', handler.url], cli);

    // Assess
    expect(code).toBe(0);
    expect(out.slice(1)).toEqual([expect.stringMatching(/^evt_000001 low-stock → failed: /), expect.stringMatching(/^evt_000002 low-stock → failed: /)]);
  });

  it.each([
    [[], '--forward-to is required'],
    [['--forward-to', 'localhost:4242'], '--forward-to must be an http:// or https:// URL'],
    [['--forward-to', 'http://127.0.0.1:4242/', '--secret', 'whsec_short'], '--secret must be whsec_'],
  ])('answers the usage mistake %j with status 2', async (args, message) => {
    const { cli, err } = listenContext(fakeFeed(0), 0);
    expect(await runCli(['events', 'listen', ...args], cli)).toBe(2);
    expect(err[0]).toContain(message);
  });
});
