import { MAX_QUEUE_DELAY_SECONDS } from './deliver.ts';
import { MESSAGE_LOST_AFTER_MS } from './sweep-at.ts';
import type { DeliveryMessage, DeliveryQueue, DeliveryTask, Replay } from './ports.ts';
import { firstAttemptMessage, sendAll, type QueuedDelivery } from './dispatch.ts';

/**
 * The due-task sweep (docs/webhooks.md "The due-task sweep"): every pending task and every
 * running replay carries the time by which its queue message must have moved it on (its
 * "sweep-at"); every step that moves it on (a settlement, a replay page; a claim leaves it) sets a new one. A
 * task or replay still there after that time has lost its message (a send that failed after a
 * commit, a message in the dead-letter queue), and the sweep sends it again. A live delivery has
 * no task before its first claim, and its task enters the due index only when an attempt
 * schedules a retry: until then the dispatcher's outbox item stands for it, and the sweep queues
 * again what each delivery of a due item still needs (`outboxMessage`), or deletes the item.
 *
 * The sweep first moves the sweep-at on, conditioned on the one it read, and only then sends:
 * of two sweeps (or a sweep and a worker) that read the same entry, one wins, so a sweep never
 * sends twice for the same loss. A message that was merely slow (a backlog longer than the grace)
 * meets the re-sent one at the worker, whose conditional claim lets one of them attempt.
 */

/** Entries the sweep takes per run at most (of the outbox, messages sent); the rest wait for the next run (every minute). */
export const MAX_SWEPT_PER_RUN = 1000;

/** The message that continues a task from where it stands: the attempt under way (to settle it) or the next. */
export function resendMessage(task: DeliveryTask, nowMs: number): { message: DeliveryMessage; delaySeconds: number } {
  const identity = { organizationId: task.organizationId, endpointId: task.endpointId, sequence: task.sequence, origin: task.origin };
  if (task.inFlight) return { message: { kind: 'attempt', ...identity, attempt: task.inFlight.number, dueAt: nowMs }, delaySeconds: 0 };
  // A first attempt was due when its event committed; a retry, at the time its settlement set.
  const dueAt = task.nextAttemptAt === null ? Date.parse(task.committedAt) : Date.parse(task.nextAttemptAt);
  const delaySeconds = Math.min(MAX_QUEUE_DELAY_SECONDS, Math.max(0, Math.ceil((dueAt - nowMs) / 1000)));
  return { message: { kind: 'attempt', ...identity, attempt: task.attempts + 1, dueAt }, delaySeconds };
}

/** An outbox item of the dispatcher: the deliveries it queued for a run of one organization's events. */
export interface OutboxRun {
  organizationId: string;
  firstSequence: number;
  lastSequence: number;
  deliveries: QueuedDelivery[];
}

/** An index entry the sweep read: the item and the sweep-at it was filed under (what its lease is conditioned on). */
export interface SweptEntry<T> {
  item: T;
  sweepKey: string;
}

export interface DueSweepPorts {
  /** Pending tasks whose sweep-at has passed, at most `limit` (a bounded Query per shard). */
  dueTasks(now: Date, limit: number): Promise<SweptEntry<DeliveryTask>[]>;
  /** Moves the task's sweep-at to `nextSweepAt` if it is still filed under the one read; false when it moved on. */
  leaseTask(entry: SweptEntry<DeliveryTask>, nextSweepAt: Date): Promise<boolean>;
  /** Running replays whose sweep-at has passed, at most `limit`. */
  stalledReplays(now: Date, limit: number): Promise<SweptEntry<Replay>[]>;
  leaseReplay(entry: SweptEntry<Replay>, nextSweepAt: Date): Promise<boolean>;
  /** Outbox items whose sweep-at has passed, at most `limit`. */
  dueOutbox(now: Date, limit: number): Promise<SweptEntry<OutboxRun>[]>;
  leaseOutbox(entry: SweptEntry<OutboxRun>, nextSweepAt: Date): Promise<boolean>;
  /** Each delivery of the item with its task as it stands (none before its first claim). */
  tasksOf(run: OutboxRun): Promise<Array<{ delivery: QueuedDelivery; task: DeliveryTask | undefined }>>;
  /** Deletes the item, if it is still filed under the sweep's lease until `leasedUntil`. */
  closeOutbox(run: OutboxRun, leasedUntil: Date): Promise<void>;
  queue: DeliveryQueue;
  /** Told about an entry the sweep could not handle; the sweep goes on with the others. */
  onError?(what: { organizationId: string; id: string }, error: unknown): void;
}

export interface DueSweepResult {
  tasks: number;
  replays: number;
  /** Live deliveries queued again from the outbox. */
  outbox: number;
  errors: number;
}

/** Entries leased and sent together (one SendMessageBatch). */
const SWEEP_BATCH = 10;

export async function sweepDueDeliveries(ports: DueSweepPorts, now = new Date()): Promise<DueSweepResult> {
  const result: DueSweepResult = { tasks: 0, replays: 0, outbox: 0, errors: 0 };
  const nextSweepAt = new Date(now.getTime() + MESSAGE_LOST_AFTER_MS);
  const tasks = await ports.dueTasks(now, MAX_SWEPT_PER_RUN);
  for (let start = 0; start < tasks.length; start += SWEEP_BATCH) {
    const batch = tasks.slice(start, start + SWEEP_BATCH);
    const leased = await leaseAll(
      batch,
      (entry) => ports.leaseTask(entry, nextSweepAt),
      (entry) => ({ organizationId: entry.item.organizationId, id: `${entry.item.endpointId}#${entry.item.sequence}#${entry.item.origin}` }),
      ports,
      result,
    );
    if (leased.length === 0) continue;
    try {
      await ports.queue.send(leased.map((entry) => resendMessage(entry.item, now.getTime())));
      result.tasks += leased.length;
    } catch (error) {
      // Leased but not sent: the next sweep after the lease sends them.
      result.errors += leased.length;
      ports.onError?.({ organizationId: leased[0]?.item.organizationId ?? '', id: 'task batch' }, error);
    }
  }
  const replays = await ports.stalledReplays(now, MAX_SWEPT_PER_RUN);
  for (let start = 0; start < replays.length; start += SWEEP_BATCH) {
    const batch = replays.slice(start, start + SWEEP_BATCH);
    const leased = await leaseAll(
      batch,
      (entry) => ports.leaseReplay(entry, nextSweepAt),
      (entry) => ({ organizationId: entry.item.organizationId, id: entry.item.id }),
      ports,
      result,
    );
    if (leased.length === 0) continue;
    try {
      await ports.queue.send(
        leased.map(({ item }) => ({
          message: { kind: 'replay', organizationId: item.organizationId, replayId: item.id, sentAt: now.getTime() } satisfies DeliveryMessage,
          delaySeconds: 0,
        })),
      );
      result.replays += leased.length;
    } catch (error) {
      result.errors += leased.length;
      ports.onError?.({ organizationId: leased[0]?.item.organizationId ?? '', id: 'replay batch' }, error);
    }
  }
  await sweepOutbox(ports, now, nextSweepAt, result);
  return result;
}

/**
 * What an outbox item's delivery still needs from it: a first attempt (no task: its message was
 * lost before the claim), the attempt under way (a claimed task is not in the due index until an
 * attempt schedules a retry, so its lost message is the outbox's to send), or nothing (ended, or
 * a retry the task's own sweep-at covers).
 */
export function outboxMessage(delivery: QueuedDelivery, task: DeliveryTask | undefined, nowMs: number): DeliveryMessage | undefined {
  if (!task) return firstAttemptMessage(delivery, 'live', Date.parse(delivery.event.committedAt));
  if (task.status === 'pending' && (task.inFlight || task.nextAttemptAt === null)) return resendMessage(task, nowMs).message;
  return undefined;
}

/**
 * Due outbox items: leased, then each delivery that needs it queued again, or the item deleted
 * when none does. One item holds up to 250 events to every endpoint of an organization, so the
 * messages a run sends are bounded (MAX_SWEPT_PER_RUN), not the items: a queue backlog longer than
 * the grace makes unclaimed deliveries look lost, and their copies must not grow with it. What a
 * run leaves waits, leased, for the item's next look.
 */
async function sweepOutbox(ports: DueSweepPorts, now: Date, nextSweepAt: Date, result: DueSweepResult): Promise<void> {
  const runs = await ports.dueOutbox(now, MAX_SWEPT_PER_RUN);
  let budget = MAX_SWEPT_PER_RUN;
  for (let start = 0; start < runs.length && budget > 0; start += SWEEP_BATCH) {
    const batch = runs.slice(start, start + SWEEP_BATCH);
    const describe = (entry: SweptEntry<OutboxRun>) => ({
      organizationId: entry.item.organizationId,
      id: `outbox ${entry.item.firstSequence}-${entry.item.lastSequence}`,
    });
    const leased = await leaseAll(batch, (entry) => ports.leaseOutbox(entry, nextSweepAt), describe, ports, result);
    // One item at a time: the budget decides how much of each is sent.
    for (const entry of leased) {
      // Spent: the leased rest get their next look after the lease.
      if (budget === 0) break;
      try {
        const owed = (await ports.tasksOf(entry.item)).flatMap(({ delivery, task }) => outboxMessage(delivery, task, now.getTime()) ?? []);
        if (owed.length === 0) {
          await ports.closeOutbox(entry.item, nextSweepAt);
          continue;
        }
        const sent = owed.slice(0, budget);
        budget -= sent.length;
        await sendAll(ports.queue, sent);
        result.outbox += sent.length;
      } catch (error) {
        result.errors += 1;
        ports.onError?.(describe(entry), error);
      }
    }
  }
}

async function leaseAll<T>(
  batch: readonly SweptEntry<T>[],
  lease: (entry: SweptEntry<T>) => Promise<boolean>,
  describe: (entry: SweptEntry<T>) => { organizationId: string; id: string },
  ports: Pick<DueSweepPorts, 'onError'>,
  result: DueSweepResult,
): Promise<SweptEntry<T>[]> {
  const outcomes = await Promise.all(
    batch.map(async (entry) => {
      try {
        return (await lease(entry)) ? entry : undefined;
      } catch (error) {
        result.errors += 1;
        ports.onError?.(describe(entry), error);
        return undefined;
      }
    }),
  );
  return outcomes.filter((entry): entry is SweptEntry<T> => entry !== undefined);
}
