import { describe, expect, it } from 'vitest';
import {
  MAX_SWEPT_PER_RUN,
  outboxMessage,
  resendMessage,
  sweepDueDeliveries,
  type DueSweepPorts,
  type SweptEntry,
} from '../../../lib/webhooks/domain/due-sweep.ts';
import type { DeliveryMessage, DeliveryTask, Replay } from '../../../lib/webhooks/domain/ports.ts';
import type { OutboxRun } from '../../../lib/webhooks/domain/due-sweep.ts';
import { MESSAGE_LOST_AFTER_MS, taskSweepAt } from '../../../lib/webhooks/domain/sweep-at.ts';

/**
 * The due-task sweep's decisions (docs/webhooks.md "The due-task sweep"): when a task counts as
 * having lost its message, which message continues it, and that nothing is sent for an entry
 * whose lease was not won.
 */

const NOW = Date.parse('2026-06-01T12:00:00.000Z');
const task = (overrides: Partial<DeliveryTask> = {}): DeliveryTask => ({
  organizationId: 'org_1',
  endpointId: 'whe_1',
  sequence: 7,
  origin: 'live',
  eventId: 'evt_7',
  eventType: 'item.created',
  committedAt: '2026-06-01T11:00:00.000Z',
  attempts: 0,
  status: 'pending',
  nextAttemptAt: null,
  inFlight: null,
  ...overrides,
});

describe('sweep-at', () => {
  it('a new task: its creation plus the grace; a retry: its due time plus the grace (a claim leaves it as it is)', () => {
    expect(taskSweepAt(task(), NOW)).toBe(NOW + MESSAGE_LOST_AFTER_MS);
    expect(taskSweepAt(task({ attempts: 1, nextAttemptAt: '2026-06-02T12:00:00.000Z' }), NOW)).toBe(
      Date.parse('2026-06-02T12:00:00.000Z') + MESSAGE_LOST_AFTER_MS,
    );
  });

  it('a finished task owes no message', () => {
    for (const status of ['succeeded', 'failed', 'cancelled'] as const) expect(taskSweepAt(task({ status }), NOW)).toBeNull();
  });
});

describe('the re-sent message', () => {
  it('a first attempt, due when its event committed', () => {
    expect(resendMessage(task(), NOW)).toEqual({
      message: {
        kind: 'attempt',
        organizationId: 'org_1',
        endpointId: 'whe_1',
        sequence: 7,
        origin: 'live',
        attempt: 1,
        dueAt: Date.parse('2026-06-01T11:00:00.000Z'),
      },
      delaySeconds: 0,
    });
  });

  it('the next attempt, due at the time its settlement set', () => {
    const dueAt = '2026-06-01T11:50:00.000Z';
    expect(resendMessage(task({ attempts: 3, nextAttemptAt: dueAt }), NOW).message).toMatchObject({ attempt: 4, dueAt: Date.parse(dueAt) });
  });

  it('the attempt under way, so the worker settles it as interrupted', () => {
    expect(resendMessage(task({ attempts: 2, inFlight: { attemptId: 'wha_2', number: 2, startedAt: '2026-06-01T11:00:00.000Z' } }), NOW).message).toMatchObject(
      { attempt: 2 },
    );
  });
});

function ports(
  entries: SweptEntry<DeliveryTask>[],
  lease: (entry: SweptEntry<DeliveryTask>) => Promise<boolean>,
  send: (messages: DeliveryMessage[]) => Promise<void> = async () => undefined,
) {
  const sent: DeliveryMessage[] = [];
  const errors: unknown[] = [];
  const sweepPorts: DueSweepPorts = {
    dueTasks: async () => entries,
    leaseTask: lease,
    stalledReplays: async (): Promise<SweptEntry<Replay>[]> => [],
    leaseReplay: async () => true,
    dueOutbox: async () => [],
    leaseOutbox: async () => true,
    tasksOf: async () => [],
    closeOutbox: async () => undefined,
    queue: {
      send: async (messages) => {
        await send(messages.map(({ message }) => message));
        sent.push(...messages.map(({ message }) => message));
      },
    },
    onError: (_what, error) => void errors.push(error),
  };
  return { sweepPorts, sent, errors };
}

describe('sweepDueDeliveries', () => {
  const entries = [1, 2, 3].map((sequence) => ({ item: task({ sequence }), sweepKey: `k${sequence}` }));

  it('sends only what it leased: an entry moved on meanwhile (lease lost) is left alone', async () => {
    const { sweepPorts, sent } = ports(entries, async (entry) => entry.sweepKey !== 'k2');
    expect(await sweepDueDeliveries(sweepPorts, new Date(NOW))).toEqual({ tasks: 2, replays: 0, outbox: 0, errors: 0 });
    expect(sent.map((message) => (message.kind === 'attempt' ? message.sequence : 0))).toEqual([1, 3]);
  });

  it('leases to the grace from now, before sending', async () => {
    const leasedTo: number[] = [];
    const { sweepPorts } = ports(entries.slice(0, 1), async (_entry) => true);
    sweepPorts.leaseTask = async (_entry, next) => {
      leasedTo.push(next.getTime());
      return true;
    };
    await sweepDueDeliveries(sweepPorts, new Date(NOW));
    expect(leasedTo).toEqual([NOW + MESSAGE_LOST_AFTER_MS]);
  });

  it('one entry whose lease fails, or a send that fails, is counted and the others go on', async () => {
    const { sweepPorts, sent, errors } = ports(entries, async (entry) => {
      if (entry.sweepKey === 'k1') throw new Error('throttled');
      return true;
    });
    expect(await sweepDueDeliveries(sweepPorts, new Date(NOW))).toEqual({ tasks: 2, replays: 0, outbox: 0, errors: 1 });
    expect(sent).toHaveLength(2);
    expect(errors).toHaveLength(1);
    const failing = ports(
      entries,
      async () => true,
      async () => Promise.reject(new Error('SQS down')),
    );
    expect(await sweepDueDeliveries(failing.sweepPorts, new Date(NOW))).toEqual({ tasks: 0, replays: 0, outbox: 0, errors: 3 });
  });
});

describe('sweeping the dispatch outbox', () => {
  const delivery = (sequence: number, endpointId: string) => ({
    event: { organizationId: 'org_1', sequence, eventId: `evt_${sequence}`, type: 'item.created', committedAt: '2026-06-01T11:00:00.000Z' },
    endpointId,
  });
  const run = (first: number, deliveries = [delivery(first, 'whe_1'), delivery(first, 'whe_2')]): SweptEntry<OutboxRun> => ({
    item: { organizationId: 'org_1', firstSequence: first, lastSequence: first, deliveries },
    sweepKey: `o${first}`,
  });
  const ended = (sequence: number, endpointId: string) => task({ sequence, endpointId, attempts: 1, status: 'succeeded' });

  it('what a delivery still needs: a first attempt without a task, the attempt under way of a claimed one; nothing for an ended task or a scheduled retry (its own sweep-at covers it)', () => {
    const first = delivery(7, 'whe_1');
    expect(outboxMessage(first, undefined, NOW)).toEqual({
      kind: 'attempt',
      organizationId: 'org_1',
      endpointId: 'whe_1',
      sequence: 7,
      origin: 'live',
      attempt: 1,
      dueAt: Date.parse('2026-06-01T11:00:00.000Z'),
      event: { eventId: 'evt_7', type: 'item.created', committedAt: '2026-06-01T11:00:00.000Z' },
    });
    const underWay = task({ attempts: 1, inFlight: { attemptId: 'wha_1', number: 1, startedAt: '2026-06-01T11:00:01.000Z' } });
    expect(outboxMessage(first, underWay, NOW)).toMatchObject({ kind: 'attempt', attempt: 1, dueAt: NOW });
    expect(outboxMessage(first, task({ attempts: 1, status: 'succeeded' }), NOW)).toBeUndefined();
    expect(outboxMessage(first, task({ attempts: 1, status: 'failed' }), NOW)).toBeUndefined();
    expect(outboxMessage(first, task({ attempts: 1, nextAttemptAt: '2026-06-01T13:00:00.000Z' }), NOW)).toBeUndefined();
  });

  it("queues what a due item's deliveries need and keeps the item; deletes an item none of whose deliveries needs anything", async () => {
    const { sweepPorts, sent } = ports([], async () => true);
    const closed: number[] = [];
    sweepPorts.dueOutbox = async () => [run(1), run(2)];
    sweepPorts.tasksOf = async (item) =>
      item.deliveries.map((queued) => ({
        delivery: queued,
        task: item.firstSequence === 1 && queued.endpointId === 'whe_2' ? undefined : ended(item.firstSequence, queued.endpointId),
      }));
    sweepPorts.closeOutbox = async (item, leasedUntil) => {
      expect(leasedUntil.getTime()).toBe(NOW + MESSAGE_LOST_AFTER_MS);
      closed.push(item.firstSequence);
    };

    expect(await sweepDueDeliveries(sweepPorts, new Date(NOW))).toEqual({ tasks: 0, replays: 0, outbox: 1, errors: 0 });

    expect(sent).toEqual([expect.objectContaining({ kind: 'attempt', endpointId: 'whe_2', sequence: 1, attempt: 1 })]);
    expect(closed).toEqual([2]);
  });

  it('an item whose lease another sweep won is neither read nor sent; a failed read is counted and the others go on', async () => {
    const { sweepPorts, sent, errors } = ports([], async () => true);
    const read: number[] = [];
    sweepPorts.dueOutbox = async () => [run(1), run(2), run(3)];
    sweepPorts.leaseOutbox = async (entry) => entry.sweepKey !== 'o2';
    sweepPorts.tasksOf = async (item) => {
      read.push(item.firstSequence);
      if (item.firstSequence === 1) throw new Error('throttled');
      return item.deliveries.map((queued) => ({ delivery: queued, task: undefined }));
    };

    expect(await sweepDueDeliveries(sweepPorts, new Date(NOW))).toEqual({ tasks: 0, replays: 0, outbox: 2, errors: 1 });

    expect(read.sort()).toEqual([1, 3]);
    expect(sent.map((message) => (message.kind === 'attempt' ? `${message.endpointId}/${message.sequence}` : ''))).toEqual(['whe_1/3', 'whe_2/3']);
    expect(errors).toHaveLength(1);
  });

  it('sends at most MAX_SWEPT_PER_RUN messages a run, however many deliveries its items owe; the rest wait, leased, for the next look', async () => {
    const { sweepPorts, sent } = ports([], async () => true);
    const big = (first: number) =>
      run(
        first,
        Array.from({ length: 700 }, (_, index) => delivery(first + index, 'whe_1')),
      );
    const looked: number[] = [];
    sweepPorts.dueOutbox = async () => [big(1), big(1001), big(2001)];
    sweepPorts.tasksOf = async (item) => {
      looked.push(item.firstSequence);
      return item.deliveries.map((queued) => ({ delivery: queued, task: undefined }));
    };

    expect(await sweepDueDeliveries(sweepPorts, new Date(NOW))).toEqual({ tasks: 0, replays: 0, outbox: MAX_SWEPT_PER_RUN, errors: 0 });

    expect(sent).toHaveLength(MAX_SWEPT_PER_RUN);
    expect(looked).toEqual([1, 1001]);
  });
});
