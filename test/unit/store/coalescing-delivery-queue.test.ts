import { describe, expect, it } from 'vitest';
import type { DeliveryMessage, DeliveryQueue } from '../../../lib/webhooks/domain/ports.ts';
import { CoalescingDeliveryQueue } from '../../../lib/webhooks/store/webhook-queue.ts';

const message = (sequence: number): { message: DeliveryMessage; delaySeconds: number } => ({
  message: { kind: 'attempt', organizationId: 'org_a', endpointId: 'whe_a', sequence, origin: 'live', attempt: 1, dueAt: 0 },
  delaySeconds: 1,
});

class RecordingQueue implements DeliveryQueue {
  readonly requests: number[][] = [];
  constructor(private readonly refuse: (sequences: number[]) => boolean = () => false) {}
  send(messages: readonly { message: DeliveryMessage }[]): Promise<void> {
    const sequences = messages.map(({ message }) => (message.kind === 'attempt' ? message.sequence : -1));
    this.requests.push(sequences);
    return this.refuse(sequences) ? Promise.reject(new Error('refused')) : Promise.resolve();
  }
}

describe('CoalescingDeliveryQueue', () => {
  it('sends what is sent in one turn of the event loop together, at most 10 messages to a request', async () => {
    const inner = new RecordingQueue();
    const queue = new CoalescingDeliveryQueue(inner);
    await Promise.all(Array.from({ length: 12 }, (_, index) => queue.send([message(index)])));
    expect(inner.requests).toEqual([
      [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
      [10, 11],
    ]);
  });

  it("fails only the callers of a refused request, and keeps each caller's messages in one request", async () => {
    const inner = new RecordingQueue((sequences) => sequences.includes(100));
    const queue = new CoalescingDeliveryQueue(inner);
    const outcomes = await Promise.allSettled([
      queue.send(Array.from({ length: 9 }, (_, index) => message(index))),
      queue.send([message(100), message(101)]),
      queue.send([message(200)]),
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['fulfilled', 'rejected', 'rejected']);
    expect(inner.requests).toEqual([
      [0, 1, 2, 3, 4, 5, 6, 7, 8],
      [100, 101, 200],
    ]);
  });
});
