import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, callApi, createTestKey } from '../support/api.ts';
import { csv } from '../unit/client/support/e2e-inventory.ts';

/**
 * `npm run cli -- events listen` against `npm start` (docs/webhooks.md "Forwarding events to a
 * local handler"): a receiver on 127.0.0.1 verifies each request with the standardwebhooks
 * library, as a production handler would.
 */

const CLI = join(import.meta.dirname, '..', '..', 'client', 'cli', 'main.ts');
const run = promisify(execFile);

let directory: string;
let key: string;
let env: Record<string, string | undefined>;
let receiver: Server;
let receiverUrl: string;
const received: Array<{ headers: IncomingHttpHeaders; body: string }> = [];
const children: ChildProcess[] = [];

async function importItems(name: string, rows: string[]): Promise<void> {
  const file = join(directory, name);
  writeFileSync(file, csv(['sku,name', ...rows]));
  await run(process.execPath, ['--import', 'tsx', CLI, 'imports', 'submit', file, '--kind', 'items', '--wait'], { env, encoding: 'utf8' });
}

/** Resolves with the text of the stream once `pattern` matches it. */
async function waitForOutput(child: ChildProcess, stream: 'stdout' | 'stderr', pattern: RegExp): Promise<string> {
  let text = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${pattern} on ${stream} within 30 s: ${text}`)), 30_000);
    child[stream]?.on('data', (chunk: Buffer) => {
      text += chunk.toString();
      if (pattern.test(text)) {
        clearTimeout(timer);
        resolve(text);
      }
    });
  });
}

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'events-listen-'));
  ({ key } = await createTestKey());
  env = { ...process.env, INVENTORY_API_URL: baseUrl(), INVENTORY_API_KEY: key };
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      response.writeHead(200).end();
    });
  });
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
});

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill();
  receiver.close();
  rmSync(directory, { recursive: true, force: true });
});

describe('npm run cli -- events listen', () => {
  it('forwards a created item event, from now on, signed with the secret it printed, byte for byte as the feed serves it', async () => {
    // Prepare: an event from before the listener started, which it must not forward
    await importItems('before.csv', ['LISTEN-0,Before']);
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, 'events', 'listen', '--forward-to', receiverUrl, '--idle-delay', '0.2'], { env });
    children.push(child);
    const stdout = waitForOutput(child, 'stdout', /→ \d+ \(\d+ ms\)\n/);
    await waitForOutput(child, 'stderr', /Forwarding events from now/);

    // Act
    await importItems('after.csv', ['LISTEN-1,After']);
    const lines = (await stdout).trim().split('\n');
    child.kill('SIGINT');
    const [exitCode] = (await once(child, 'exit')) as [number | null];

    // Assess: the secret first, one forward line, the handler got exactly the new event
    const secret = /^Webhook signing secret: (whsec_\S+)$/.exec(lines[0] ?? '')?.[1];
    expect(secret).toBeDefined();
    expect(received).toHaveLength(1);
    const [delivery] = received;
    const event = new Webhook(secret!).verify(delivery!.body, delivery!.headers as Record<string, string>) as {
      id: string;
      type: string;
      data: { item: { sku: string } };
    };
    expect([event.type, event.data.item.sku]).toEqual(['item.created', 'LISTEN-1']);
    expect(delivery!.headers['webhook-id']).toBe(event.id);
    expect(lines[1]).toMatch(new RegExp(`^${event.id} item\\.created → 200 \\(\\d+ ms\\)$`));
    expect(exitCode).toBe(0);

    // The body is the envelope exactly as it appears in the feed's response
    const feed = await callApi(`/v1/events?limit=200`, { key });
    expect(await feed.text()).toContain(delivery!.body);
  });
});
