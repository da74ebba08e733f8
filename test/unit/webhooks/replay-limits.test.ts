import { describe, expect, it } from 'vitest';
import type { StoredEndpoint } from '../../../lib/webhooks/domain/endpoint.ts';
import type { DeliveryMessage, DeliveryTask, Replay, StoredEventText } from '../../../lib/webhooks/domain/ports.ts';
import { REPLAY_PAGE_SIZE, runReplayPage, type ReplayPorts } from '../../../lib/webhooks/domain/replay.ts';
import { MAX_REPLAY_TASKS_IN_FLIGHT, REPLAY_WAIT_SECONDS } from '../../../lib/webhooks/domain/replay-limits.ts';

/**
 * The organization's cap on unfinished replay tasks (docs/webhooks.md "Replaying"): a page is
 * created only while a whole page fits under the cap; otherwise it waits, creating nothing, and
 * looks again later. Driven to the end, a replay never takes the count past the cap.
 */

const ORG = 'org_cap';
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

function world(lastEvent: number, unfinishedElsewhere: number) {
  const replay: Replay = {
    id: 'whr_1',
    organizationId: ORG,
    endpointId: 'whe_1',
    nextSequence: 1,
    untilSequence: lastEvent,
    fromUtc: null,
    status: 'running',
    createdAt: '2026-01-01T00:00:00.000Z',
  };
  const tasks: DeliveryTask[] = [];
  const sent: { message: DeliveryMessage; delaySeconds: number }[] = [];
  const postponed: number[] = [];
  const state = { unfinishedElsewhere, finished: 0 };
  const inFlight = () => state.unfinishedElsewhere + tasks.length - state.finished;
  const ports: ReplayPorts = {
    replays: {
      createWrites: () => [],
      get: async () => ({ ...replay }),
      advance: async (read, nextSequence, done) => {
        if (read.nextSequence !== replay.nextSequence) return false;
        Object.assign(replay, { nextSequence, status: done ? 'done' : 'running' });
        return true;
      },
      postpone: async (_read, untilMs) => {
        postponed.push(untilMs);
        return true;
      },
    },
    endpoints: { get: async () => endpoint, all: async () => [endpoint] },
    events: {
      readPage: async (_org, from, max) => {
        const events = Array.from({ length: Math.max(0, Math.min(max, lastEvent - from + 1)) }, (_, index) => eventAt(from + index));
        return { events, more: (events.at(-1)?.sequence ?? from - 1) < lastEvent };
      },
    },
    load: { tasksInFlight: async (_org, atMost) => Math.min(atMost, inFlight()) },
    deliveries: {
      createTask: async (task) => {
        tasks.push(task);
        return { created: true };
      },
    },
    queue: { send: async (messages) => void sent.push(...messages) },
    clock: () => new Date(0),
  };
  const message: Extract<DeliveryMessage, { kind: 'replay' }> = { kind: 'replay', organizationId: ORG, replayId: replay.id, sentAt: 0 };
  return { replay, tasks, sent, postponed, state, inFlight, run: () => runReplayPage(ports, message) };
}

describe('the replay cap', () => {
  it('a page waits, creating nothing, while a whole page would not fit under the cap', async () => {
    const { run, tasks, sent, postponed, replay } = world(1000, MAX_REPLAY_TASKS_IN_FLIGHT - REPLAY_PAGE_SIZE + 1);
    expect(await run()).toBe('waiting');
    expect(tasks).toHaveLength(0);
    expect(replay).toMatchObject({ nextSequence: 1, status: 'running' });
    expect(sent).toEqual([{ message: expect.objectContaining({ kind: 'replay', replayId: 'whr_1' }), delaySeconds: REPLAY_WAIT_SECONDS }]);
    expect(postponed).toEqual([REPLAY_WAIT_SECONDS * 1000]);
  });

  it('a page goes ahead when it fits exactly', async () => {
    const { run, tasks } = world(1000, MAX_REPLAY_TASKS_IN_FLIGHT - REPLAY_PAGE_SIZE);
    expect(await run()).toBe('continued');
    expect(tasks).toHaveLength(REPLAY_PAGE_SIZE);
  });

  it('a long replay never takes the unfinished tasks past the cap, and goes on as they finish', async () => {
    const { run, tasks, state, inFlight, replay } = world(2000, 0);
    let peak = 0;
    for (let step = 0; step < 200 && replay.status === 'running'; step += 1) {
      const verdict = await run();
      peak = Math.max(peak, inFlight());
      // Deliveries finish while pages wait: a quarter of the unfinished ones per wait.
      if (verdict === 'waiting') state.finished += Math.ceil((tasks.length - state.finished) / 4);
    }
    expect(replay.status).toBe('done');
    expect(tasks).toHaveLength(2000);
    expect(peak).toBeLessThanOrEqual(MAX_REPLAY_TASKS_IN_FLIGHT);
  });
});
