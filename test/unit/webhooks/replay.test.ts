import { describe, expect, it } from 'vitest';
import type { StoredEndpoint } from '../../../lib/webhooks/domain/endpoint.ts';
import type { DeliveryMessage, DeliveryTask, Replay, StoredEventText } from '../../../lib/webhooks/domain/ports.ts';
import { runReplayPage, type ReplayPorts } from '../../../lib/webhooks/domain/replay.ts';

/**
 * A replay pages the feed by position (docs/webhooks.md "Replaying"): a page shorter than asked
 * (a DynamoDB Query stops at 1 MB; a batch item of large events fills it) is not the end.
 */

const ORG = 'org_replay';
const endpoint: StoredEndpoint = {
  organizationId: ORG,
  endpoint: {
    id: 'whe_1',
    url: 'https://hooks.example.com/a',
    description: '',
    eventTypes: [],
    status: 'enabled',
    disabledReason: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
  },
  secrets: [],
  createdAfterSequence: 0,
  failingSince: null,
  version: 1,
};
const eventAt = (sequence: number): StoredEventText => ({
  sequence,
  eventId: `evt_${sequence}`,
  type: 'item.created',
  committedAt: '2026-01-01T00:00:00.000Z',
  envelopeJson: '{}',
});

/** A store that, like a 1 MB Query page of large events, answers at most `perPage` events per read. */
function shortPages(last: number, perPage: number) {
  const all = Array.from({ length: last }, (_, index) => eventAt(index + 1));
  const slice = (from: number, max: number) => all.filter((event) => event.sequence >= from).slice(0, Math.min(max, perPage));
  return {
    // The length-based reader the replay used before it paged by position.
    readFrom: async (_org: string, from: number, max: number) => slice(from, max),
    readPage: async (_org: string, from: number, max: number) => {
      const events = slice(from, max);
      const after = events.at(-1)?.sequence ?? from - 1;
      return { events, more: all.some((event) => event.sequence > after) };
    },
  };
}

async function runToEnd(untilSequence: number, perPage: number): Promise<number[]> {
  const replay: Replay = {
    id: 'whr_1',
    organizationId: ORG,
    endpointId: 'whe_1',
    nextSequence: 1,
    untilSequence,
    fromUtc: null,
    status: 'running',
    createdAt: '2026-01-01T00:00:00.000Z',
  };
  const tasks: DeliveryTask[] = [];
  const pending: DeliveryMessage[] = [{ kind: 'replay', organizationId: ORG, replayId: replay.id, sentAt: 0 }];
  const ports: ReplayPorts = {
    replays: {
      createWrites: () => [],
      get: async () => ({ ...replay }),
      advance: async (read, nextSequence, done) => {
        if (read.nextSequence !== replay.nextSequence || replay.status !== 'running') return false;
        Object.assign(replay, { nextSequence, status: done ? 'done' : 'running' });
        return true;
      },
      postpone: async () => true,
    },
    endpoints: { get: async () => endpoint, all: async () => [endpoint] },
    events: shortPages(untilSequence, perPage),
    // No earlier replay tasks pending: the cap never holds a page back here.
    load: { tasksInFlight: async () => 0 },
    deliveries: {
      createTask: async (task) => {
        tasks.push(task);
        return { created: true };
      },
    },
    queue: {
      send: async (messages) => {
        pending.push(...messages.map(({ message }) => message).filter((message) => message.kind === 'replay'));
      },
    },
  };
  for (let message = pending.shift(); message; message = pending.shift()) {
    if (message.kind === 'replay') await runReplayPage(ports, message);
  }
  expect(replay.status).toBe('done');
  return tasks.map((task) => task.sequence);
}

describe('replay paging', () => {
  it('pages shorter than the limit do not end the replay: every event gets a task', async () => {
    expect(await runToEnd(10, 3)).toEqual(Array.from({ length: 10 }, (_, index) => index + 1));
  });

  it('a replay over more than one full page still ends at its last event', async () => {
    expect(await runToEnd(250, 1000)).toHaveLength(250);
  });
});
