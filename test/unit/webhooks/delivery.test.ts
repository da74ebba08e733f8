import { describe, expect, it } from 'vitest';
import { DeliveryWorker, MAX_QUEUE_DELAY_SECONDS, type SendResult } from '../../../lib/webhooks/domain/deliver.ts';
import {
  CARRIED_ENVELOPE_MAX_BYTES,
  dispatchEvents,
  liveRecipients,
  newTask,
  type CommittedEvent,
  type DispatchOutbox,
} from '../../../lib/webhooks/domain/dispatch.ts';
import { EVENT_RETENTION_DAYS } from '../../../lib/platform/events/types.ts';
import { FAILING_DISABLE_AFTER_DAYS, type StoredEndpoint, type WebhookEndpoint } from '../../../lib/webhooks/domain/endpoint.ts';
import type {
  AttemptGate,
  AttemptOutcome,
  AttemptUnderWay,
  DeliveryAttempt,
  DeliveryMessage,
  DeliveryStorage,
  DeliveryTask,
  EndpointStorage,
  TaskIdentity,
  TaskNext,
} from '../../../lib/webhooks/domain/ports.ts';

/**
 * The webhook flows' decisions on in-memory ports (docs/webhooks.md "Delivery", "Retry waits",
 * "Disabling"): which endpoints an event goes to, one task per (endpoint, event), the chain of
 * delayed messages, and what a failure, a 410 and five days of failures do.
 */

const ORG = 'org_1';
const endpointOf = (id: string, overrides: Partial<WebhookEndpoint> = {}): WebhookEndpoint => ({
  id,
  url: 'https://hooks.example.com/a',
  description: '',
  eventTypes: [],
  status: 'enabled',
  disabledReason: null,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  ...overrides,
});
const stored = (endpoint: WebhookEndpoint, createdAfterSequence = 0, failingSince: string | null = null): StoredEndpoint => ({
  organizationId: ORG,
  endpoint,
  secrets: [{ sealed: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', expiresAt: null }],
  createdAfterSequence,
  failingSince,
  version: 1,
});
const event = (sequence: number, type = 'item.created'): CommittedEvent => ({
  organizationId: ORG,
  sequence,
  eventId: `evt_${sequence}`,
  type,
  committedAt: '2026-01-01T00:00:00.000Z',
});

class Memory implements DeliveryStorage {
  tasks = new Map<string, DeliveryTask>();
  log = new Map<string, DeliveryAttempt>();
  private key = (task: Pick<DeliveryTask, 'endpointId' | 'sequence' | 'origin'>) => `${task.endpointId}/${task.sequence}/${task.origin}`;
  async createTask(task: DeliveryTask) {
    const existing = this.tasks.get(this.key(task));
    if (existing) return { created: false as const, existing: structuredClone(existing) };
    this.tasks.set(this.key(task), structuredClone(task));
    return { created: true as const };
  }
  async getTask(identity: Pick<DeliveryTask, 'endpointId' | 'sequence' | 'origin'>) {
    const task = this.tasks.get(this.key(identity));
    return task ? structuredClone(task) : undefined;
  }
  async claimAttempt(identity: TaskIdentity, attempt: AttemptUnderWay, created?: DeliveryTask) {
    if (!this.tasks.has(this.key(identity)) && attempt.number === 1 && created) this.tasks.set(this.key(identity), structuredClone(created));
    const current = this.tasks.get(this.key(identity));
    if (!current || current.attempts !== attempt.number - 1 || current.inFlight || current.status !== 'pending')
      return { claimed: false as const, task: current && structuredClone(current) };
    current.attempts = attempt.number;
    current.inFlight = attempt;
    return { claimed: true as const, task: structuredClone(current) };
  }
  async recordPending(task: DeliveryTask, attempt: AttemptUnderWay) {
    if (!this.log.has(attempt.attemptId))
      this.log.set(attempt.attemptId, {
        id: attempt.attemptId,
        eventId: task.eventId,
        eventType: task.eventType,
        attempt: attempt.number,
        status: 'pending',
        responseStatus: null,
        durationMs: null,
        error: null,
        attemptedAt: attempt.startedAt,
        nextAttemptAt: null,
      });
  }
  async settleAttempt(task: DeliveryTask, attempt: AttemptUnderWay, outcome: AttemptOutcome, next: TaskNext) {
    const entry = this.log.get(attempt.attemptId);
    if (entry && entry.status !== 'pending') return false;
    this.log.set(attempt.attemptId, {
      id: attempt.attemptId,
      eventId: task.eventId,
      eventType: task.eventType,
      attempt: attempt.number,
      attemptedAt: attempt.startedAt,
      ...outcome,
    });
    return this.finishTask(task, attempt.attemptId, next);
  }
  async attemptOf(_task: DeliveryTask, attemptId: string) {
    const entry = this.log.get(attemptId);
    return entry ? structuredClone(entry) : undefined;
  }
  async finishTask(task: DeliveryTask, attemptId: string, next: TaskNext) {
    const current = this.tasks.get(this.key(task));
    if (!current || current.inFlight?.attemptId !== attemptId) return false;
    Object.assign(current, next, { inFlight: null });
    return true;
  }
  async attemptsPage() {
    return { items: [...this.log.values()], more: false };
  }
}

function endpointsOf(list: StoredEndpoint[]) {
  const disabled: Array<{ id: string; reason: string }> = [];
  let failingSince: string | undefined;
  const storage: EndpointStorage = {
    get: async (_org, id) => list.find((candidate) => candidate.endpoint.id === id),
    all: async () => list,
    page: async () => ({ items: list, more: false }),
    createWrites: () => [],
    replaceWrites: () => [],
    deleteWrites: () => [],
    markFailing: async (_org, _id, now) => (failingSince ??= list[0]?.failingSince ?? now.toISOString()),
    clearFailing: async () => {
      failingSince = undefined;
    },
    disable: async (_org, id, reason) => {
      disabled.push({ id, reason });
      return true;
    },
  };
  return { storage, disabled };
}

class Queue {
  sent: Array<{ message: DeliveryMessage; delaySeconds: number }> = [];
  async send(messages: readonly { message: DeliveryMessage; delaySeconds: number }[]) {
    this.sent.push(...messages);
  }
}

describe('dispatching', () => {
  it('sends an event to the enabled endpoints that subscribe to its type and were created before it', () => {
    const endpoints = [
      stored(endpointOf('whe_all')),
      stored(endpointOf('whe_stock', { eventTypes: ['stock.changed'] })),
      stored(endpointOf('whe_off', { status: 'disabled', disabledReason: 'manual' })),
      stored(endpointOf('whe_later'), 5),
    ];
    expect(liveRecipients(endpoints, event(3, 'item.created')).map(({ endpoint }) => endpoint.id)).toEqual(['whe_all']);
    expect(liveRecipients(endpoints, event(6, 'stock.changed')).map(({ endpoint }) => endpoint.id)).toEqual(['whe_all', 'whe_stock', 'whe_later']);
  });

  it("puts a batch's deliveries in the outbox as its messages go, each naming its event; a retried batch queues them again", async () => {
    const queue = new Queue();
    const recorded: Array<{ organizationId: string; deliveries: string[]; queuedBefore: number }> = [];
    const outbox: DispatchOutbox = {
      record: async (organizationId, deliveries) => {
        recorded.push({
          organizationId,
          deliveries: deliveries.map(({ event, endpointId }) => `${endpointId}/${event.sequence}`),
          queuedBefore: queue.sent.length,
        });
      },
    };
    const { storage } = endpointsOf([stored(endpointOf('whe_a')), stored(endpointOf('whe_b'))]);
    const dispatcher = { endpoints: storage, outbox, queue };

    expect(await dispatchEvents(dispatcher, [event(1), event(2)])).toBe(4);
    expect(await dispatchEvents(dispatcher, [event(1), event(2)])).toBe(4);

    expect(recorded).toEqual([
      { organizationId: ORG, deliveries: ['whe_a/1', 'whe_b/1', 'whe_a/2', 'whe_b/2'], queuedBefore: 0 },
      { organizationId: ORG, deliveries: ['whe_a/1', 'whe_b/1', 'whe_a/2', 'whe_b/2'], queuedBefore: 4 },
    ]);
    expect(queue.sent).toHaveLength(8);
    expect(queue.sent[0]?.message).toMatchObject({
      kind: 'attempt',
      endpointId: 'whe_a',
      sequence: 1,
      origin: 'live',
      attempt: 1,
      event: { eventId: 'evt_1', type: 'item.created', committedAt: '2026-01-01T00:00:00.000Z' },
    });
  });

  it('a batch whose outbox write fails fails once its sends have ended (the stream retries it whole; the claim drops the copies)', async () => {
    const queue = new Queue();
    const { storage } = endpointsOf([stored(endpointOf('whe_a'))]);
    const outbox: DispatchOutbox = { record: () => Promise.reject(new Error('throttled')) };
    await expect(dispatchEvents({ endpoints: storage, outbox, queue }, [event(1)])).rejects.toThrow('throttled');
    expect(queue.sent).toHaveLength(1);
  });

  it('a batch whose sends fail fails once its outbox write has ended', async () => {
    const recorded: string[] = [];
    const outbox: DispatchOutbox = {
      record: async (organizationId) => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        recorded.push(organizationId);
      },
    };
    const { storage } = endpointsOf([stored(endpointOf('whe_a'))]);
    const queue = { send: () => Promise.reject(new Error('queue refused')) };
    await expect(dispatchEvents({ endpoints: storage, outbox, queue }, [event(1)])).rejects.toThrow('queue refused');
    expect(recorded).toEqual([ORG]);
  });

  it("a first attempt's message carries a small envelope from the stream, byte for byte; a large one, or one with U+FFFE or U+FFFF, is left to the worker's read", async () => {
    const queue = new Queue();
    const { storage } = endpointsOf([stored(endpointOf('whe_a'))]);
    const small = '{"id":"evt_1","data":{"name":"caf\u00e9 ☕ \ud83d\ude00"}}';
    const large = `{"id":"evt_2","data":"${'x'.repeat(CARRIED_ENVELOPE_MAX_BYTES)}"}`;
    const refused = '{"id":"evt_3","data":"\uffff"}';
    await dispatchEvents({ endpoints: storage, outbox: { record: async () => undefined }, queue }, [
      { ...event(1), envelopeJson: small },
      { ...event(2), envelopeJson: large },
      { ...event(3), envelopeJson: refused },
      event(4),
    ]);
    const carried = queue.sent.map(({ message }) => (message.kind === 'attempt' ? message.event?.envelopeJson : undefined));
    expect(carried).toEqual([small, undefined, undefined, undefined]);
    const body = JSON.stringify(queue.sent[0]?.message);
    expect((JSON.parse(body) as { event: { envelopeJson: string } }).event.envelopeJson).toBe(small);
  });

  it('an attempt whose message carries its envelope sends it without reading the event; past retention it reads, and finds none', async () => {
    const memory = new Memory();
    const { storage } = endpointsOf([stored(endpointOf('whe_a'))]);
    const reads: number[] = [];
    const bodies: string[] = [];
    const worker = new DeliveryWorker({
      endpoints: storage,
      deliveries: memory,
      events: {
        find: async (_org, sequence) => {
          reads.push(sequence);
          return undefined;
        },
      },
      queue: new Queue(),
      secrets: { seal: async (secret) => secret, open: async (sealed) => sealed },
      send: async ({ body }) => {
        bodies.push(body);
        return { outcome: 'succeeded', responseStatus: 204, durationMs: 3, error: null, retryAfterSeconds: null };
      },
    });
    const envelopeJson = '{"id":"evt_1","type":"item.created"}';
    const message = (sequence: number, committedAt: string): Extract<DeliveryMessage, { kind: 'attempt' }> => ({
      kind: 'attempt',
      organizationId: ORG,
      endpointId: 'whe_a',
      sequence,
      origin: 'live',
      attempt: 1,
      dueAt: Date.now(),
      event: { eventId: `evt_${sequence}`, type: 'item.created', committedAt, envelopeJson },
    });
    expect(await worker.handle(message(1, new Date().toISOString()), false)).toBe('sent');
    expect(bodies).toEqual([envelopeJson]);
    expect(reads).toEqual([]);
    const retentionAgo = new Date(Date.now() - EVENT_RETENTION_DAYS * 86_400_000 - 1000).toISOString();
    expect(await worker.handle(message(2, retentionAgo), false)).toBe('cancelled');
    expect(reads).toEqual([2]);
    expect(bodies).toHaveLength(1);
  });

  it("the first claim of a live delivery creates its task, once: the retried batch's copies of its message are dropped", async () => {
    const memory = new Memory();
    const queue = new Queue();
    const { storage } = endpointsOf([stored(endpointOf('whe_a')), stored(endpointOf('whe_b'))]);
    const outbox: DispatchOutbox = { record: async () => undefined };
    await dispatchEvents({ endpoints: storage, outbox, queue }, [event(1), event(2)]);
    await dispatchEvents({ endpoints: storage, outbox, queue }, [event(1), event(2)]);
    let sends = 0;
    const worker = new DeliveryWorker({
      endpoints: storage,
      deliveries: memory,
      events: {
        find: async (_org, sequence) => ({
          sequence,
          eventId: `evt_${sequence}`,
          type: 'item.created',
          committedAt: '2026-01-01T00:00:00.000Z',
          envelopeJson: `{"id":"evt_${sequence}"}`,
        }),
      },
      queue: new Queue(),
      secrets: { seal: async (secret) => secret, open: async (sealed) => sealed },
      send: async () => {
        sends += 1;
        return { outcome: 'succeeded', responseStatus: 204, durationMs: 3, error: null, retryAfterSeconds: null };
      },
    });

    const verdicts = [];
    for (const { message } of queue.sent) verdicts.push(await worker.handle(message as Extract<DeliveryMessage, { kind: 'attempt' }>, false));

    expect(verdicts).toEqual(['sent', 'sent', 'sent', 'sent', 'dropped', 'dropped', 'dropped', 'dropped']);
    expect(sends).toBe(4);
    expect([...memory.tasks.values()].map((task) => [task.endpointId, task.sequence, task.eventId, task.status, task.attempts])).toEqual([
      ['whe_a', 1, 'evt_1', 'succeeded', 1],
      ['whe_b', 1, 'evt_1', 'succeeded', 1],
      ['whe_a', 2, 'evt_2', 'succeeded', 1],
      ['whe_b', 2, 'evt_2', 'succeeded', 1],
    ]);
  });

  it('a first attempt whose event is past retention is cancelled: its message named the event, so the claim still records the end', async () => {
    const memory = new Memory();
    const { storage } = endpointsOf([stored(endpointOf('whe_a'))]);
    const worker = new DeliveryWorker({
      endpoints: storage,
      deliveries: memory,
      events: { find: async () => undefined },
      queue: new Queue(),
      secrets: { seal: async (secret) => secret, open: async (sealed) => sealed },
      send: async () => Promise.reject(new Error('nothing is sent')),
    });
    const message: Extract<DeliveryMessage, { kind: 'attempt' }> = {
      kind: 'attempt',
      organizationId: ORG,
      endpointId: 'whe_a',
      sequence: 1,
      origin: 'live',
      attempt: 1,
      dueAt: Date.now(),
      event: { eventId: 'evt_1', type: 'item.created', committedAt: '2026-01-01T00:00:00.000Z' },
    };
    expect(await worker.handle(message, false)).toBe('cancelled');
    expect(await worker.handle(message, false)).toBe('dropped');
    expect([...memory.tasks.values()]).toEqual([expect.objectContaining({ status: 'cancelled', attempts: 1, inFlight: null })]);
  });
});

describe('delivering', () => {
  const setup = (
    result: Partial<SendResult>,
    options: { failingSince?: string | null; firstRetrySeconds?: number; openSecret?: (sealed: string) => Promise<string> } = {},
  ) => {
    const memory = new Memory();
    const queue = new Queue();
    const { storage, disabled } = endpointsOf([stored(endpointOf('whe_a'), 0, options.failingSince ?? null)]);
    let now = Date.parse('2026-01-10T00:00:00.000Z');
    const sent: Array<Record<string, string>> = [];
    const worker = new DeliveryWorker({
      endpoints: storage,
      deliveries: memory,
      events: {
        find: async () => ({ sequence: 1, eventId: 'evt_1', type: 'item.created', committedAt: '2026-01-10T00:00:00.000Z', envelopeJson: '{"id":"evt_1"}' }),
      },
      queue,
      secrets: { seal: async (secret) => secret, open: options.openSecret ?? (async (sealed) => sealed) },
      send: async (input) => {
        sent.push(input.headers);
        return { outcome: 'failed', responseStatus: 500, durationMs: 3, error: 'HTTP 500', retryAfterSeconds: null, ...result };
      },
      random: () => 0.5,
      clock: () => new Date(now),
      ...(options.firstRetrySeconds === undefined ? {} : { firstRetrySeconds: options.firstRetrySeconds }),
    });
    const task = newTask(event(1), 'whe_a', 'live');
    void memory.createTask(task);
    const message = (attempt: number, dueAt = now): Extract<DeliveryMessage, { kind: 'attempt' }> => ({
      kind: 'attempt',
      organizationId: ORG,
      endpointId: 'whe_a',
      sequence: 1,
      origin: 'live',
      attempt,
      dueAt,
    });
    return { memory, queue, worker, disabled, sent, task, message, advance: (ms: number) => (now += ms), now: () => now };
  };

  it('a failed attempt schedules the next as a chain of delayed messages of at most 15 minutes', async () => {
    const { worker, queue, memory, message, advance } = setup({});
    expect(await worker.handle(message(1), false)).toBe('sent');
    // Attempt 2 after 5 s (±20 %, here exactly), attempt 3 after 5 min, attempt 4 after 30 min.
    expect(queue.sent.at(-1)).toMatchObject({ delaySeconds: 5, message: { attempt: 2 } });
    advance(5000);
    await worker.handle(queue.sent.at(-1)?.message as ReturnType<typeof message>, false);
    advance(300_000);
    await worker.handle(queue.sent.at(-1)?.message as ReturnType<typeof message>, false);
    const chained = queue.sent.at(-1) as { message: ReturnType<typeof message>; delaySeconds: number };
    expect(chained.delaySeconds).toBe(MAX_QUEUE_DELAY_SECONDS);
    // Early: sent on with the rest of the wait, no attempt.
    advance(MAX_QUEUE_DELAY_SECONDS * 1000);
    expect(await worker.handle(chained.message, false)).toBe('delayed');
    expect(queue.sent.at(-1)?.delaySeconds).toBe(900);
    expect([...memory.log.values()].map((entry) => entry.status)).toEqual(['failed', 'failed', 'failed']);
    // A stale duplicate of an earlier attempt's message changes nothing.
    expect(await worker.handle(message(2), false)).toBe('dropped');
  });

  it('a success settles the task; the log entry says succeeded', async () => {
    const { worker, memory, message, sent } = setup({ outcome: 'succeeded', responseStatus: 204, error: null });
    expect(await worker.handle(message(1), false)).toBe('sent');
    expect([...memory.tasks.values()][0]).toMatchObject({ status: 'succeeded', attempts: 1, inFlight: null });
    expect(sent[0]?.['webhook-id']).toBe('evt_1');
  });

  it('an attempt that ends at once writes no pending log entry, only its outcome: a write unit less on AWS', async () => {
    // Prepare
    const { worker, memory, message } = setup({ outcome: 'succeeded', responseStatus: 204, error: null });
    const pendingWritten: string[] = [];
    const record = memory.recordPending.bind(memory);
    memory.recordPending = async (task, attempt) => {
      pendingWritten.push(attempt.attemptId);
      await record(task, attempt);
    };

    // Act
    expect(await worker.handle(message(1), false)).toBe('sent');

    // Assess
    expect(pendingWritten).toEqual([]);
    expect([...memory.log.values()]).toEqual([expect.objectContaining({ attempt: 1, status: 'succeeded' })]);
  });

  it('an attempt still under way after a moment gets its pending log entry, before its outcome', async () => {
    // Prepare: the send answers only after the moment has passed
    const memory = new Memory();
    const { storage } = endpointsOf([stored(endpointOf('whe_a'))]);
    const seen: string[] = [];
    const worker = new DeliveryWorker({
      endpoints: storage,
      deliveries: memory,
      events: {
        find: async () => ({ sequence: 1, eventId: 'evt_1', type: 'item.created', committedAt: '2026-01-10T00:00:00.000Z', envelopeJson: '{"id":"evt_1"}' }),
      },
      queue: new Queue(),
      secrets: { seal: async (secret) => secret, open: async (sealed) => sealed },
      pendingEntryAfterMs: 20,
      send: async () => {
        await new Promise((resolve) => setTimeout(resolve, 80));
        seen.push(...[...memory.log.values()].map((entry) => entry.status));
        return { outcome: 'succeeded', responseStatus: 204, durationMs: 80, error: null, retryAfterSeconds: null };
      },
    });
    void memory.createTask(newTask(event(1), 'whe_a', 'live'));

    // Act
    expect(
      await worker.handle({ kind: 'attempt', organizationId: ORG, endpointId: 'whe_a', sequence: 1, origin: 'live', attempt: 1, dueAt: Date.now() }, false),
    ).toBe('sent');

    // Assess: pending while it ran, its outcome after
    expect(seen).toEqual(['pending']);
    expect([...memory.log.values()]).toEqual([expect.objectContaining({ attempt: 1, status: 'succeeded' })]);
  });

  it('a pending log entry that cannot be written does not abandon the request: it is sent, and the settle writes the whole entry', async () => {
    // Prepare: an attempt slow enough for its pending entry, whose write fails
    const memory = new Memory();
    memory.recordPending = async () => Promise.reject(new Error('throttled'));
    const { storage } = endpointsOf([stored(endpointOf('whe_a'))]);
    let sends = 0;
    const worker = new DeliveryWorker({
      endpoints: storage,
      deliveries: memory,
      events: {
        find: async () => ({ sequence: 1, eventId: 'evt_1', type: 'item.created', committedAt: '2026-01-10T00:00:00.000Z', envelopeJson: '{"id":"evt_1"}' }),
      },
      queue: new Queue(),
      secrets: { seal: async (secret) => secret, open: async (sealed) => sealed },
      pendingEntryAfterMs: 5,
      send: async () => {
        sends += 1;
        await new Promise((resolve) => setTimeout(resolve, 40));
        return { outcome: 'succeeded', responseStatus: 200, durationMs: 40, error: null, retryAfterSeconds: null };
      },
    });
    void memory.createTask(newTask(event(1), 'whe_a', 'live'));

    // Act
    expect(
      await worker.handle({ kind: 'attempt', organizationId: ORG, endpointId: 'whe_a', sequence: 1, origin: 'live', attempt: 1, dueAt: Date.now() }, false),
    ).toBe('sent');

    // Assess
    expect(sends).toBe(1);
    expect([...memory.log.values()]).toEqual([expect.objectContaining({ attempt: 1, status: 'succeeded', responseStatus: 200 })]);
    expect([...memory.tasks.values()][0]).toMatchObject({ status: 'succeeded', inFlight: null });
  });

  it('a secret that cannot be opened fails the attempt unsent: logged with why, retried on the schedule', async () => {
    const { worker, memory, queue, message, sent } = setup({}, { openSecret: async () => Promise.reject(new Error('KMS unavailable')) });
    expect(await worker.handle(message(1), false)).toBe('sent');
    expect(sent).toHaveLength(0);
    expect([...memory.log.values()]).toEqual([
      expect.objectContaining({ attempt: 1, status: 'failed', responseStatus: null, error: expect.stringMatching(/signing secret could not be opened/) }),
    ]);
    expect([...memory.tasks.values()][0]).toMatchObject({ status: 'pending', attempts: 1, inFlight: null });
    expect(queue.sent.at(-1)).toMatchObject({ message: { attempt: 2 } });
  });

  it('a 410 disables the endpoint at once (gone) and schedules nothing', async () => {
    const { worker, queue, disabled, message } = setup({ outcome: 'gone', responseStatus: 410 });
    await worker.handle(message(1), false);
    expect(disabled).toEqual([{ id: 'whe_a', reason: 'gone' }]);
    expect(queue.sent).toHaveLength(0);
  });

  it(`five days of failures disable the endpoint (failing)`, async () => {
    const longAgo = new Date(Date.parse('2026-01-10T00:00:00.000Z') - FAILING_DISABLE_AFTER_DAYS * 86_400_000).toISOString();
    const { worker, queue, disabled, memory, message } = setup({}, { failingSince: longAgo });
    await worker.handle(message(1), false);
    expect(disabled).toEqual([{ id: 'whe_a', reason: 'failing' }]);
    expect(queue.sent).toHaveLength(0);
    expect([...memory.tasks.values()][0]?.status).toBe('failed');
  });

  it('the local first-retry setting replaces only the first wait', async () => {
    const { worker, queue, message, advance } = setup({}, { firstRetrySeconds: 1 });
    await worker.handle(message(1), false);
    expect(queue.sent.at(-1)?.delaySeconds).toBe(1);
    advance(1000);
    await worker.handle(queue.sent.at(-1)?.message as ReturnType<typeof message>, false);
    expect(queue.sent.at(-1)?.delaySeconds).toBe(300);
  });
});

describe('delivering within the shares (docs/webhooks.md "Fairness")', () => {
  /** A gate that admits while `open` is true and records every release. */
  const recordingGate = () => {
    const state = { open: false, held: 0, releases: [] as Array<boolean | null> };
    const gate: AttemptGate = {
      acquire: async () => {
        if (!state.open) return { admitted: false, reason: 'organization-share' };
        state.held += 1;
        return { admitted: true };
      },
      release: async ({ timedOut }) => {
        state.held -= 1;
        state.releases.push(timedOut);
      },
    };
    return { gate, state };
  };
  const setupWith = (result: Partial<SendResult>, gate: AttemptGate) => {
    const memory = new Memory();
    const queue = new Queue();
    const { storage } = endpointsOf([stored(endpointOf('whe_a'))]);
    let sends = 0;
    const worker = new DeliveryWorker({
      endpoints: storage,
      deliveries: memory,
      events: {
        find: async () => ({ sequence: 1, eventId: 'evt_1', type: 'item.created', committedAt: '2026-01-10T00:00:00.000Z', envelopeJson: '{"id":"evt_1"}' }),
      },
      queue,
      secrets: { seal: async (secret) => secret, open: async (sealed) => sealed },
      send: async () => {
        sends += 1;
        return { outcome: 'failed', responseStatus: 500, durationMs: 3, error: 'HTTP 500', retryAfterSeconds: null, ...result };
      },
      random: () => 0,
      gate,
      attemptDeadlineMs: 15_000,
    });
    void memory.createTask(newTask(event(1), 'whe_a', 'live'));
    const message: Extract<DeliveryMessage, { kind: 'attempt' }> = {
      kind: 'attempt',
      organizationId: ORG,
      endpointId: 'whe_a',
      sequence: 1,
      origin: 'live',
      attempt: 1,
      dueAt: Date.now(),
    };
    return { memory, queue, worker, message, sends: () => sends };
  };

  it('beyond the share, the same attempt is queued again, not claimed, not sent, not counted as failed', async () => {
    const { gate, state } = recordingGate();
    const { worker, queue, memory, message, sends } = setupWith({}, gate);

    expect(await worker.handle(message, false)).toBe('deferred');

    expect(queue.sent).toEqual([{ message: { ...message, deferrals: 1 }, delaySeconds: 1 }]);
    expect([sends(), memory.log.size, [...memory.tasks.values()][0]?.attempts]).toEqual([0, 0, 0]);
    expect(state.releases).toEqual([]);
  });

  it('a deferred attempt is sent once when a slot frees; a copy of its message is then dropped', async () => {
    const { gate, state } = recordingGate();
    const { worker, queue, message, sends } = setupWith({ outcome: 'succeeded', responseStatus: 204, error: null }, gate);
    await worker.handle(message, false);
    const deferred = queue.sent[0]?.message as typeof message;
    state.open = true;

    expect(await worker.handle(deferred, false)).toBe('sent');
    expect(await worker.handle(message, true)).toBe('dropped');

    expect(sends()).toBe(1);
    expect(state).toMatchObject({ held: 0, releases: [false, null] });
  });

  it("gives the lease back with the attempt's timeout, for the circuit breaker", async () => {
    const { gate, state } = recordingGate();
    state.open = true;
    const { worker, message } = setupWith({ error: 'timed out after 15000 ms', responseStatus: null, timedOut: true }, gate);
    expect(await worker.handle(message, false)).toBe('sent');
    expect(state).toMatchObject({ held: 0, releases: [true] });
  });

  it('asks for its share saying how long the message sat in the queue past its due time; a deferred one says nothing (it waited on purpose)', async () => {
    const asked: Array<number | null | undefined> = [];
    const gate: AttemptGate = {
      acquire: async (request) => {
        asked.push(request.waitedMs);
        return { admitted: false, reason: 'organization-share' };
      },
      release: async () => undefined,
    };
    const { worker, message } = setupWith({}, gate);
    await worker.handle({ ...message, dueAt: Date.now() - 3000 }, false);
    await worker.handle({ ...message, dueAt: Date.now() - 3000, deferrals: 1 }, false);
    expect(asked[0]).toBeGreaterThanOrEqual(3000);
    expect(asked[1]).toBeNull();
  });

  it('beyond what its attempts have earned, an attempt comes back after 1 s however often it was deferred; held for others, after at most 2 s', async () => {
    const refusing = (reason: 'burst-share' | 'others-waiting'): AttemptGate => ({
      acquire: async () => ({ admitted: false, reason }),
      release: async () => undefined,
    });
    const burst = setupWith({}, refusing('burst-share'));
    await burst.worker.handle({ ...burst.message, deferrals: 6 }, false);
    expect(burst.queue.sent[0]).toMatchObject({ message: { deferrals: 7 }, delaySeconds: 1 });
    const held = setupWith({}, refusing('others-waiting'));
    await held.worker.handle({ ...held.message, deferrals: 6 }, false);
    expect(held.queue.sent[0]?.delaySeconds).toBe(2);
  });

  it('an endpoint with an open circuit is deferred at least the attempt deadline', async () => {
    const gate: AttemptGate = { acquire: async () => ({ admitted: false, reason: 'open-circuit' }), release: async () => undefined };
    const { worker, queue, message } = setupWith({}, gate);
    expect(await worker.handle(message, false)).toBe('deferred');
    expect(queue.sent[0]?.delaySeconds).toBe(15);
  });
});
