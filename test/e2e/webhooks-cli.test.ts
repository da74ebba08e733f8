import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { baseUrl, createTestKey, uniqueOrganization } from '../support/api.ts';
import { commit, eventDraft } from '../support/events.ts';
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts';
import { runCli } from '../support/cli.ts';

/** `npm run cli -- webhooks …` against `npm start` (docs/webhooks.md), as a child process. */

let env: Record<string, string | undefined>;
let organizationId: string;
let receiver: Receiver;

const cli = (...args: string[]) => runCli(env, args);

beforeAll(async () => {
  receiver = await startReceiver();
  organizationId = uniqueOrganization();
  const { key } = await createTestKey({ organizationId, scopes: ['all'] });
  env = { ...process.env, INVENTORY_API_URL: baseUrl(), INVENTORY_API_KEY: key };
});

afterAll(() => receiver.close());

describe('npm run cli -- webhooks', () => {
  it('create prints the secret once; list, deliveries and replay follow the endpoint', async () => {
    const created = await cli(
      'webhooks',
      'create',
      '--endpoint-url',
      receiver.url('/cli'),
      '--types',
      'item.created,low-stock',
      '--description',
      'from the CLI',
    );
    expect(created.code, created.stderr).toBe(0);
    const endpoint = JSON.parse(created.stdout) as { id: string; secret: string; eventTypes: string[] };
    expect(endpoint.secret).toMatch(/^whsec_/);
    expect(endpoint.eventTypes).toEqual(['item.created', 'low-stock']);
    receiver.trust('/cli', endpoint.secret);

    const listed = await cli('webhooks', 'list');
    expect(
      listed.stdout
        .trim()
        .split('\n')
        .map((line) => (JSON.parse(line) as { id: string }).id),
    ).toEqual([endpoint.id]);
    expect(listed.stdout).not.toContain('whsec_');

    const { events } = await commit(organizationId, [eventDraft('item.created')]);
    const [delivery] = await receiver.waitFor('/cli', 1);
    expect(delivery?.verifiedWith).toEqual([endpoint.secret]);

    let attempts: Array<{ eventId: string; status: string }> = [];
    for (let tries = 0; tries < 50 && !attempts.some((attempt) => attempt.status === 'succeeded'); tries += 1) {
      const deliveries = await cli('webhooks', 'deliveries', '--endpoint', endpoint.id, '--event', events[0]?.id ?? '');
      attempts = deliveries.stdout
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { eventId: string; status: string });
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(attempts).toMatchObject([{ eventId: events[0]?.id, status: 'succeeded' }]);

    const replay = await cli('webhooks', 'replay', '--endpoint', endpoint.id, '--from', '2000-01-01T00:00:00Z');
    expect(replay.code, replay.stderr).toBe(0);
    const again = await receiver.waitFor('/cli', 2);
    expect(again[1]?.headers['webhook-id']).toBe(events[0]?.id);

    const mistake = await cli('webhooks', 'replay', '--endpoint', endpoint.id);
    expect(mistake.code).toBe(2);
  });
});
