import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createTasks, type CommittedEvent, type TaskPlanner } from '../../../lib/webhooks/domain/dispatch.ts';
import type { DeliveryMessage, DeliveryTask } from '../../../lib/webhooks/domain/ports.ts';

/** A replay page's task puts and sends (lib/webhooks/domain/dispatch.ts `createTasks`): messages go out while later puts run; a failed put fails the call only after every send ended. */

const event = (sequence: number): CommittedEvent => ({
  organizationId: 'org_a',
  sequence,
  eventId: `evt_${sequence}`,
  type: 'item.created',
  committedAt: '2026-01-01T00:00:00.000Z',
});
const pairs = (count: number) => Array.from({ length: count }, (_, index) => ({ event: event(index + 1), endpointId: 'whe_1', origin: 'live' }));

function planner(options: { failOn?: number; existing?: Map<number, Partial<DeliveryTask>> } = {}) {
  const log: string[] = [];
  const sent: DeliveryMessage[][] = [];
  const plan: TaskPlanner = {
    deliveries: {
      createTask: async (task) => {
        await sleep(1 + (task.sequence % 3));
        if (task.sequence === options.failOn) throw new Error(`put of ${task.sequence} failed`);
        log.push(`put ${task.sequence}`);
        const existing = options.existing?.get(task.sequence);
        return existing ? { created: false, existing: { ...task, ...existing } } : { created: true };
      },
    },
    queue: {
      send: async (messages) => {
        log.push(`send ${messages.length}`);
        await sleep(2);
        sent.push(messages.map(({ message }) => message));
      },
    },
  };
  return { plan, log, sent };
}

describe('createTasks', () => {
  it('sends ten messages at a time as their puts end, before the last puts do, and queues each task once', async () => {
    const { plan, log, sent } = planner();
    expect(await createTasks(plan, pairs(240))).toBe(240);
    expect(log.indexOf('send 10')).toBeLessThan(log.findLastIndex((line) => line.startsWith('put')));
    expect(sent.every((batch) => batch.length <= 10)).toBe(true);
    const sequences = sent.flat().map((message) => (message.kind === 'attempt' ? message.sequence : 0));
    expect(sequences.sort((a, b) => a - b)).toEqual(Array.from({ length: 240 }, (_, index) => index + 1));
  });

  it('queues a task that existed only while it was never attempted', async () => {
    const existing = new Map<number, Partial<DeliveryTask>>([
      [2, { status: 'pending', attempts: 0 }],
      [3, { status: 'pending', attempts: 1 }],
      [4, { status: 'succeeded', attempts: 1 }],
    ]);
    const { plan, sent } = planner({ existing });
    expect(await createTasks(plan, pairs(5))).toBe(3);
    expect(
      sent
        .flat()
        .map((message) => (message.kind === 'attempt' ? message.sequence : 0))
        .sort(),
    ).toEqual([1, 2, 5]);
  });

  it('fails on a failed put, after the messages of the tasks it did put are sent', async () => {
    const { plan, log, sent } = planner({ failOn: 7 });
    await expect(createTasks(plan, pairs(60))).rejects.toThrow('put of 7 failed');
    const queued = sent.flat().map((message) => (message.kind === 'attempt' ? message.sequence : 0));
    expect(queued).toHaveLength(59);
    expect(queued).not.toContain(7);
    expect(log.filter((line) => line.startsWith('send')).length).toBe(sent.length);
  });
});

describe('createTasks when every send fails', () => {
  it('fails with the send error once every put ended, leaving no rejection unhandled', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const { plan } = planner();
      plan.queue = { send: async () => Promise.reject(new Error('queue down')) };
      await expect(createTasks(plan, pairs(200))).rejects.toThrow('queue down');
      // Give a stray rejection the turns it needs to be reported.
      await sleep(20);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
