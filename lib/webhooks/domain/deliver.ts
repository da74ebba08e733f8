import type { AuditEvent } from '../../platform/audit/types.ts';
import { STALE_ATTEMPT_MS } from './attempt-limits.ts';
import { newId } from '../../platform/core/ids.ts';
import { FAILING_DISABLE_AFTER_DAYS, sealedSecretContext, signingSecrets, type DisabledReason, type SecretBox, type StoredEndpoint } from './endpoint.ts';
import { deferralDelaySeconds, type ShareRefusal } from './fair-share.ts';
import type {
  AttemptGate,
  AttemptOutcome,
  AttemptUnderWay,
  DeliveryMessage,
  DeliveryQueue,
  DeliveryStorage,
  DeliveryTask,
  EndpointStorage,
  EventSource,
  Settler,
  StoredEventText,
  TaskIdentity,
  TaskNext,
} from './ports.ts';
import { newTask } from './dispatch.ts';
import { AttemptCaches, AttemptReads, carriedEvent } from './attempt-reads.ts';
import { nextAttemptDelaySeconds } from './retry-schedule.ts';
import { taskAsRecorded } from './recorded-end.ts';
import { signatureHeaders } from './signing.ts';

/**
 * The delivery worker's decision for one queue message (docs/webhooks.md "Delivery" and "Retry
 * waits"). An attempt is claimed before it is sent (the task's attempt count, conditioned; a live
 * delivery's first claim creates the task; then, for an attempt still under way after a moment, a
 * `pending` log entry) and settled after (the log
 * entry's outcome, then the task's next state),
 * so a duplicate message never sends twice and a worker that dies mid-attempt leaves a claim the
 * next delivery of the message settles: as failed, or as its log entry says when the worker died
 * between the outcome and the task's next state.
 *
 * SQS delays a message at most 15 minutes: a wait longer than that is a chain of messages, each
 * carrying the due time; one that arrives early is sent on again with the rest of the wait.
 */

/** SQS's largest DelaySeconds. */
export const MAX_QUEUE_DELAY_SECONDS = 900;
export { STALE_ATTEMPT_MS };
/** A message this early is sent on; within it the attempt starts now. */
const EARLY_TOLERANCE_MS = 1000;
/**
 * An attempt still under way this long after it was sent gets its `pending` log entry; one that
 * ends sooner writes only its outcome (a write unit less a delivery on AWS), and one whose worker
 * dies unseen is written whole by its successor's settle (docs/webhooks.md "Delivery").
 */
const PENDING_ENTRY_AFTER_MS = 1000;

export interface SendResult {
  outcome: 'succeeded' | 'failed' | 'gone';
  responseStatus: number | null;
  durationMs: number;
  error: string | null;
  retryAfterSeconds: number | null;
  /** The attempt hit its deadline (the circuit breaker counts these: docs/webhooks.md "Fairness"). */
  timedOut?: true;
}

export interface DeliveryPorts {
  endpoints: EndpointStorage;
  deliveries: DeliveryStorage;
  events: Pick<EventSource, 'find' | 'findWithBatch'>;
  queue: DeliveryQueue;
  secrets: SecretBox;
  send(input: { url: string; body: string; headers: Record<string, string> }): Promise<SendResult>;
  /** The fair shares of attempts in flight (docs/webhooks.md "Fairness"); without it attempts are not limited (tests of other concerns). */
  gate?: AttemptGate;
  /** The endpoints and envelopes the container keeps (lib/webhooks/domain/attempt-reads.ts); without them every attempt reads both. */
  readCaches?: AttemptCaches;
  /** The sender's deadline: a deferred attempt to an endpoint whose circuit is open waits at least this long. */
  attemptDeadlineMs?: number;
  /** How long an attempt runs before its `pending` log entry is written (PENDING_ENTRY_AFTER_MS unless a test says). */
  pendingEntryAfterMs?: number;
  /** The wait after the first failed attempt instead of the schedule's, for local tests only (WEBHOOK_FIRST_RETRY_SECONDS). */
  firstRetrySeconds?: number;
  clock?: () => Date;
  random?: () => number;
  /** Metrics and logs: an attempt's outcome, and for a first attempt its delay since the commit. */
  observe?: (attempt: { outcome: SendResult['outcome']; number: number; commitToAttemptMs: number | null }) => void;
  log?: (message: string, details: Record<string, unknown>) => void;
}

/**
 * The task a first attempt's claim creates where none is stored (a live delivery): its event as
 * the message names it, or as read; none when neither is known (the claim then needs a stored task).
 */
function firstTask(message: Extract<DeliveryMessage, { kind: 'attempt' }>, read: StoredEventText | undefined): DeliveryTask | undefined {
  const named = message.event ?? (read ? { eventId: read.eventId, type: read.type, committedAt: read.committedAt } : undefined);
  if (!named) return undefined;
  return newTask({ organizationId: message.organizationId, sequence: message.sequence, ...named }, message.endpointId, message.origin);
}

export type DeliveryVerdict = 'sent' | 'delayed' | 'deferred' | 'dropped' | 'cancelled' | 'settled-interrupted';

/**
 * One invocation's worker: build it per invocation, with that invocation's stores and gate (their
 * batchers serve its messages only) and the container's caches (docs/webhooks.md "Delivery").
 */
export class DeliveryWorker {
  private readonly reads: AttemptReads;

  constructor(private readonly ports: DeliveryPorts) {
    this.reads = new AttemptReads(ports, ports.readCaches ?? new AttemptCaches({ endpointMs: 0, eventBytes: 0 }));
  }

  /** Handles one `attempt` message; `redelivered` when the queue gave it out before (its receive count > 1). */
  async handle(message: Extract<DeliveryMessage, { kind: 'attempt' }>, redelivered: boolean): Promise<DeliveryVerdict> {
    const { gate } = this.ports;
    // An early message is only sent on: it needs no share.
    if (!gate || message.dueAt - this.now().getTime() > EARLY_TOLERANCE_MS) return this.handleWithinShare(message, redelivered, { timedOut: null });
    // The share is asked for first, before any read: a backlog waiting for a full share costs a
    // deferral each, not the reads of an attempt.
    const now = this.now().getTime();
    const lease = { organizationId: message.organizationId, endpointId: message.endpointId, leaseId: newId('wha', now) };
    // How long it sat in the queue past its due time: known for a message never deferred (a deferred one waited on purpose).
    const waitedMs = (message.deferrals ?? 0) === 0 ? Math.max(0, now - message.dueAt) : null;
    const admission = await gate.acquire({ ...lease, waitedMs });
    if (!admission.admitted) {
      // Its organization's or its endpoint's share is in use: the same attempt comes back later, not counted as failed.
      await this.deferAttempt(message, admission.reason);
      return 'deferred';
    }
    const attempted: { timedOut: boolean | null } = { timedOut: null };
    try {
      return await this.handleWithinShare(message, redelivered, attempted);
    } finally {
      await gate.release({ ...lease, timedOut: attempted.timedOut });
    }
  }

  /** The message once it holds a share (or needs none): `attempted.timedOut` says how its attempt ended, if one was made. */
  private async handleWithinShare(
    message: Extract<DeliveryMessage, { kind: 'attempt' }>,
    redelivered: boolean,
    attempted: { timedOut: boolean | null },
  ): Promise<DeliveryVerdict> {
    const { deliveries } = this.ports;
    const now = this.now();
    if (message.dueAt - now.getTime() > EARLY_TOLERANCE_MS) {
      await this.queueAttempt(message, message.attempt, message.dueAt, now);
      return 'delayed';
    }
    // What the attempt needs is read first (mostly kept by the container): a read that fails leaves
    // the attempt unclaimed, and the message simply comes back.
    const [stored, event] = await Promise.all([
      this.reads.endpoint(message.organizationId, message.endpointId),
      this.reads.event(message.organizationId, message.sequence, carriedEvent(message, now)),
    ]);
    // Claimed without reading the task: the claim's condition is the common case, and a refused
    // claim returns the task as it stands for the cases below.
    const attempt = { attemptId: newId('wha', now.getTime()), number: message.attempt, startedAt: now.toISOString() };
    const claim = await deliveries.claimAttempt(message, attempt, message.attempt === 1 ? firstTask(message, event) : undefined);
    if (!claim.claimed) return this.notClaimed(message, claim.task, redelivered, now);
    const { task } = claim;
    if (!stored || stored.endpoint.status !== 'enabled' || !event) {
      // Deleted or disabled endpoint, or an event past retention: no attempt, and none after.
      await deliveries.finishTask(task, attempt.attemptId, { status: 'cancelled', nextAttemptAt: null });
      return 'cancelled';
    }
    // The log's `pending` entry is written while the request is still under way after a moment.
    // One that fails is left to the settle, which writes the whole entry: the request is never
    // abandoned half sent.
    let pending: Promise<void> | undefined;
    const pendingTimer = setTimeout(() => {
      pending = deliveries.recordPending(task, attempt).catch((error: unknown) => {
        this.ports.log?.('webhook pending log entry not written', {
          eventId: task.eventId,
          endpointId: task.endpointId,
          attempt: attempt.number,
          error: error instanceof Error ? error.message : String(error),
        });
      });
    }, this.ports.pendingEntryAfterMs ?? PENDING_ENTRY_AFTER_MS);
    let result: SendResult;
    try {
      result = await this.signAndSend(stored, event.envelopeJson, task.eventId, now);
    } finally {
      clearTimeout(pendingTimer);
    }
    // Its outcome goes after it, never before.
    await pending;
    attempted.timedOut = result.timedOut === true;
    this.ports.observe?.({
      outcome: result.outcome,
      number: attempt.number,
      commitToAttemptMs: attempt.number === 1 && task.origin === 'live' ? now.getTime() - Date.parse(task.committedAt) : null,
    });
    await this.settle(task, attempt, stored, result);
    return 'sent';
  }

  /**
   * The attempt itself. A signing secret that cannot be opened (a KMS failure, a key withdrawn)
   * fails this attempt like an unreachable endpoint: it is logged and retried on the schedule, so
   * a lasting failure ends the task and disables the endpoint as failing, never loops unseen.
   */
  private async signAndSend(stored: StoredEndpoint, body: string, eventId: string, now: Date): Promise<SendResult> {
    let secrets: string[];
    try {
      secrets = await Promise.all(
        signingSecrets(stored.secrets, now).map((secret) =>
          this.ports.secrets.open(secret.sealed, sealedSecretContext(stored.organizationId, stored.endpoint.id)),
        ),
      );
    } catch (error) {
      this.ports.log?.('webhook signing secret not opened', { endpointId: stored.endpoint.id, error: error instanceof Error ? error.message : String(error) });
      return {
        outcome: 'failed',
        responseStatus: null,
        durationMs: 0,
        error: 'The signing secret could not be opened; the attempt was not sent.',
        retryAfterSeconds: null,
      };
    }
    const headers = signatureHeaders({ eventId, timestampSeconds: Math.floor(now.getTime() / 1000), body, secrets });
    return this.ports.send({ url: stored.endpoint.url, body, headers });
  }

  /** A claim refused: the task (as it stands) ended, is under way elsewhere, or is at another attempt. */
  private async notClaimed(
    message: Extract<DeliveryMessage, { kind: 'attempt' }>,
    task: DeliveryTask | undefined,
    redelivered: boolean,
    now: Date,
  ): Promise<DeliveryVerdict> {
    if (!task || task.status !== 'pending') return 'dropped';
    if (task.inFlight) {
      const staleAt = Date.parse(task.inFlight.startedAt) + STALE_ATTEMPT_MS;
      if (now.getTime() < staleAt) {
        // Ended by its log entry alone (a live first attempt's claimant writes no task end): nothing left to do.
        if (taskAsRecorded(task, await this.ports.deliveries.attemptOf(task, task.inFlight.attemptId)).status !== 'pending') return 'dropped';
        // Another worker may still be sending it: come back once it must have ended, as a
        // fresh delayed message (a redelivery would spend the queue's receive count).
        await this.queueAttempt(task, message.attempt, staleAt, now);
        return 'delayed';
      }
      await this.settleInterrupted(task, now);
      return 'settled-interrupted';
    }
    if (message.attempt === task.attempts && redelivered && task.nextAttemptAt !== null) {
      // This message's attempt was settled but the worker died before queueing the next one.
      await this.queueAttempt(task, task.attempts + 1, Date.parse(task.nextAttemptAt), now);
      return 'delayed';
    }
    return 'dropped';
  }

  private async settle(task: DeliveryTask, attempt: AttemptUnderWay, stored: StoredEndpoint, result: SendResult): Promise<void> {
    const { deliveries, endpoints } = this.ports;
    const now = this.now();
    const base = { responseStatus: result.responseStatus, durationMs: result.durationMs, error: result.error };
    if (result.outcome === 'succeeded') {
      await deliveries.settleAttempt(
        task,
        attempt,
        { status: 'succeeded', ...base, nextAttemptAt: null },
        { status: 'succeeded', nextAttemptAt: null },
        'claimant',
      );
      if (stored.failingSince !== null) {
        await endpoints.clearFailing(task.organizationId, task.endpointId);
        this.reads.forgetEndpoint(task.organizationId, task.endpointId);
      }
      return;
    }
    if (result.outcome === 'gone') {
      await deliveries.settleAttempt(task, attempt, { status: 'failed', ...base, nextAttemptAt: null }, { status: 'failed', nextAttemptAt: null }, 'claimant');
      await this.disable(stored, 'gone', `answered 410 Gone to ${task.eventId}`, now);
      return;
    }
    await this.failed(task, attempt, { status: 'failed', ...base, nextAttemptAt: null }, result.retryAfterSeconds, now, 'claimant', stored);
  }

  /** A failed attempt: the next one scheduled, or none (schedule exhausted, or the endpoint failing too long). */
  private async failed(
    task: DeliveryTask,
    attempt: AttemptUnderWay,
    outcome: AttemptOutcome,
    retryAfterSeconds: number | null,
    now: Date,
    settler: Settler,
    stored?: StoredEndpoint,
  ): Promise<void> {
    const { number } = attempt;
    const failingSince = await this.ports.endpoints.markFailing(task.organizationId, task.endpointId, now);
    this.reads.forgetEndpoint(task.organizationId, task.endpointId);
    const failingTooLong = now.getTime() - Date.parse(failingSince) >= FAILING_DISABLE_AFTER_DAYS * 86_400_000;
    const scheduled =
      number === 1 && this.ports.firstRetrySeconds !== undefined
        ? this.ports.firstRetrySeconds
        : nextAttemptDelaySeconds(number, retryAfterSeconds, this.ports.random ?? Math.random);
    const nextAttemptAt = failingTooLong || scheduled === null ? null : new Date(now.getTime() + scheduled * 1000).toISOString();
    // Settled by another worker first (this one's attempt was taken for interrupted): that one queued what follows.
    if (
      !(await this.ports.deliveries.settleAttempt(
        task,
        attempt,
        { ...outcome, nextAttemptAt },
        { status: nextAttemptAt ? 'pending' : 'failed', nextAttemptAt },
        settler,
      ))
    )
      return;
    if (nextAttemptAt) await this.queueAttempt(task, number + 1, Date.parse(nextAttemptAt), now);
    if (failingTooLong) {
      const endpoint = stored ?? (await this.ports.endpoints.get(task.organizationId, task.endpointId));
      if (endpoint) await this.disable(endpoint, 'failing', `no successful delivery for ${FAILING_DISABLE_AFTER_DAYS} days`, now);
    }
  }

  private async settleInterrupted(task: DeliveryTask, now: Date): Promise<void> {
    const inFlight = task.inFlight;
    if (!inFlight) return;
    const recorded = await this.ports.deliveries.attemptOf(task, inFlight.attemptId);
    if (recorded && recorded.status !== 'pending') {
      // Its worker recorded the outcome and died before the task's next state: that state follows from the entry.
      const next: TaskNext =
        recorded.status === 'succeeded'
          ? { status: 'succeeded', nextAttemptAt: null }
          : { status: recorded.nextAttemptAt ? 'pending' : 'failed', nextAttemptAt: recorded.nextAttemptAt };
      if (!(await this.ports.deliveries.finishTask(task, inFlight.attemptId, next))) return;
      if (next.nextAttemptAt) await this.queueAttempt(task, inFlight.number + 1, Date.parse(next.nextAttemptAt), now);
      // And what the dead worker would have done to the endpoint after that outcome.
      const stored = await this.reads.endpoint(task.organizationId, task.endpointId);
      if (!stored) return;
      // Only a failing run that began before this success ends with it (newer failures started another).
      if (recorded.status === 'succeeded' && stored.failingSince !== null && Date.parse(stored.failingSince) <= Date.parse(recorded.attemptedAt)) {
        await this.ports.endpoints.clearFailing(task.organizationId, task.endpointId);
        this.reads.forgetEndpoint(task.organizationId, task.endpointId);
      }
      if (recorded.responseStatus === 410 && stored.endpoint.status === 'enabled')
        await this.disable(stored, 'gone', `answered 410 Gone to ${task.eventId}`, now);
      return;
    }
    const outcome: AttemptOutcome = {
      status: 'failed',
      responseStatus: null,
      durationMs: null,
      error: 'The attempt was interrupted before its outcome was recorded.',
      nextAttemptAt: null,
    };
    this.ports.log?.('webhook attempt interrupted', { eventId: task.eventId, endpointId: task.endpointId, attempt: inFlight.number });
    await this.failed({ ...task, attempts: inFlight.number }, inFlight, outcome, null, now, 'successor');
  }

  private async disable(stored: StoredEndpoint, reason: DisabledReason, why: string, now: Date): Promise<void> {
    const { endpoint } = stored;
    const audit: AuditEvent = {
      id: newId('aud', now.getTime()),
      kind: 'webhook-endpoint.disabled',
      target: { kind: 'webhook-endpoint', id: endpoint.id },
      summary: `Webhook endpoint for ${new URL(endpoint.url).host} disabled (${reason}): it ${why}`,
      changes: [
        { field: 'status', from: 'enabled', to: 'disabled' },
        { field: 'disabledReason', from: null, to: reason },
      ],
      occurredAt: now.toISOString(),
      actor: { type: 'system', id: 'webhook-delivery' },
      traceId: null,
      idempotencyKey: null,
    };
    const disabled = await this.ports.endpoints.disable(stored.organizationId, endpoint.id, reason, audit, now);
    this.reads.forgetEndpoint(stored.organizationId, endpoint.id);
    if (disabled) this.ports.log?.('webhook endpoint disabled', { endpointId: endpoint.id, reason });
  }

  private async deferAttempt(message: Extract<DeliveryMessage, { kind: 'attempt' }>, reason: ShareRefusal): Promise<void> {
    const deferrals = message.deferrals ?? 0;
    const delaySeconds = deferralDelaySeconds(deferrals, reason, Math.ceil((this.ports.attemptDeadlineMs ?? 15_000) / 1000), this.ports.random ?? Math.random);
    await this.ports.queue.send([{ message: { ...message, deferrals: deferrals + 1 }, delaySeconds }]);
  }

  private async queueAttempt(task: TaskIdentity, attempt: number, dueAt: number, now: Date): Promise<void> {
    const delaySeconds = Math.min(MAX_QUEUE_DELAY_SECONDS, Math.max(0, Math.ceil((dueAt - now.getTime()) / 1000)));
    const message: DeliveryMessage = {
      kind: 'attempt',
      organizationId: task.organizationId,
      endpointId: task.endpointId,
      sequence: task.sequence,
      origin: task.origin,
      attempt,
      dueAt,
    };
    await this.ports.queue.send([{ message, delaySeconds }]);
  }

  private now(): Date {
    return this.ports.clock?.() ?? new Date();
  }
}
