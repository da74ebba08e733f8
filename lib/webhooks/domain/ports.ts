import type { AuditEvent } from '../../platform/audit/types.ts';
import type { PageOf } from '../../platform/pagination/page.ts';
import type { DisabledReason, StoredEndpoint } from './endpoint.ts';
import type { ShareRefusal } from './fair-share.ts';

/** What the webhook flows need from storage and the queue (adapters in lib/webhooks/store/). */

export interface EndpointStorage<Write = unknown> {
  get(organizationId: string, endpointId: string): Promise<StoredEndpoint | undefined>;
  /** Every endpoint of the organization (at most MAX_WEBHOOK_ENDPOINTS). */
  all(organizationId: string): Promise<StoredEndpoint[]>;
  page(organizationId: string, after: string | undefined, limit: number): Promise<PageOf<StoredEndpoint>>;
  /** The endpoint and the counter's conditional increment: past the limit, the write fails with `endpointLimitReached`. */
  createWrites(organizationId: string, stored: StoredEndpoint): Write[];
  /**
   * Replaces what the user sets (url, types, description, status) and the secrets, conditioned on
   * `stored.version` (the one read): a concurrent write makes it fail with a 409 conflict.
   * `endRunOfFailures` clears the run of failures (re-enabling); otherwise the worker's is kept.
   */
  replaceWrites(organizationId: string, stored: StoredEndpoint, options?: { endRunOfFailures?: boolean }): Write[];
  deleteWrites(organizationId: string, endpointId: string): Write[];
  /** A failed attempt: the start of the run of failures, kept if one is running; returns it. */
  markFailing(organizationId: string, endpointId: string, now: Date): Promise<string>;
  /** A success ends the run of failures. */
  clearFailing(organizationId: string, endpointId: string): Promise<void>;
  /**
   * Disables an enabled endpoint with its audit entry, in one transaction conditioned on the
   * version it read (re-read and retried when another write came first); false when it was not
   * enabled any more.
   */
  disable(organizationId: string, endpointId: string, reason: DisabledReason, audit: AuditEvent, now: Date): Promise<boolean>;
}

export type TaskStatus = 'pending' | 'succeeded' | 'failed' | 'cancelled';

/** One event to send to one endpoint: created once per (endpoint, event, origin). */
export interface DeliveryTask {
  organizationId: string;
  endpointId: string;
  sequence: number;
  /** `live` (the dispatcher's) or the replay id. */
  origin: string;
  eventId: string;
  eventType: string;
  /** When the event committed: the first attempt's latency is measured from it. */
  committedAt: string;
  /** Attempts started so far. */
  attempts: number;
  status: TaskStatus;
  nextAttemptAt: string | null;
  /** The attempt under way (its log entry is `pending`), if any. */
  inFlight: AttemptUnderWay | null;
}

export interface AttemptUnderWay {
  attemptId: string;
  number: number;
  startedAt: string;
}

export type TaskIdentity = Pick<DeliveryTask, 'organizationId' | 'endpointId' | 'sequence' | 'origin'>;

/** One entry of an endpoint's delivery log (one per attempt). */
export interface DeliveryAttempt {
  id: string;
  eventId: string;
  eventType: string;
  attempt: number;
  status: 'succeeded' | 'failed' | 'pending';
  responseStatus: number | null;
  durationMs: number | null;
  error: string | null;
  attemptedAt: string;
  nextAttemptAt: string | null;
}

/** Who settles an attempt: the worker that claimed and sent it, or one that took it over as interrupted. */
export type Settler = 'claimant' | 'successor';

/** A task's state after an attempt: retried (`pending` with the time), or ended. */
export interface TaskNext {
  status: TaskStatus;
  nextAttemptAt: string | null;
}

export interface AttemptOutcome {
  status: 'succeeded' | 'failed';
  responseStatus: number | null;
  durationMs: number | null;
  error: string | null;
  nextAttemptAt: string | null;
}

export interface DeliveryStorage {
  /** Created where none exists: `created`, or the task that already exists. */
  createTask(task: DeliveryTask): Promise<{ created: true } | { created: false; existing: DeliveryTask }>;
  getTask(identity: TaskIdentity): Promise<DeliveryTask | undefined>;
  /**
   * Starts attempt `number`: the task's count, conditioned on the one before, with no attempt under
   * way; the task after, or (refused) as it stands. A first attempt given `created` creates the task
   * as that where none is stored (a live delivery: the dispatcher queues it without a task).
   */
  claimAttempt(
    identity: TaskIdentity,
    attempt: AttemptUnderWay,
    created?: DeliveryTask,
  ): Promise<{ claimed: true; task: DeliveryTask } | { claimed: false; task: DeliveryTask | undefined }>;
  /** The claimed attempt's `pending` log entry, put by its claimant before its outcome. */
  recordPending(task: DeliveryTask, attempt: AttemptUnderWay): Promise<void>;
  /**
   * Ends the attempt under way: its log entry, then the task's next state (only while that attempt
   * is in flight); false when another worker settled the task first. The `claimant` (the worker
   * that sent it) writes the entry whatever it holds, and an end (no next attempt) to the task
   * too; a `successor` (settling it as interrupted) writes only over a `pending` entry or none.
   */
  settleAttempt(task: DeliveryTask, attempt: AttemptUnderWay, outcome: AttemptOutcome, next: TaskNext, settler?: Settler): Promise<boolean>;
  /** The log entry of one attempt, if written. */
  attemptOf(task: Pick<DeliveryTask, 'organizationId' | 'endpointId'>, attemptId: string): Promise<DeliveryAttempt | undefined>;
  /** The task's next state after attempt `attemptId`, whose log entry already holds its outcome; false when the attempt is no longer the task's in flight. */
  finishTask(task: DeliveryTask, attemptId: string, next: TaskNext): Promise<boolean>;
  attemptsPage(
    organizationId: string,
    endpointId: string,
    filter: { eventId?: string; status?: string },
    after: string | undefined,
    limit: number,
  ): Promise<PageOf<DeliveryAttempt>>;
}

/**
 * The event a first attempt's message names, so that its claim can create the task; a live first
 * attempt's message also carries the stored envelope when it is small (`envelopeJson`, the
 * dispatcher's copy from the stream), so the attempt needs no read of the event.
 */
export interface NamedEvent {
  eventId: string;
  type: string;
  committedAt: string;
  envelopeJson?: string;
}

/** The delivery queue's messages (docs/webhooks.md "Retry waits"); `deferrals`: how often the attempt waited for its share ("Fairness"). */
export type DeliveryMessage =
  | {
      kind: 'attempt';
      organizationId: string;
      endpointId: string;
      sequence: number;
      origin: string;
      attempt: number;
      dueAt: number;
      deferrals?: number;
      event?: NamedEvent;
    }
  | { kind: 'replay'; organizationId: string; replayId: string; sentAt: number };

export interface DeliveryQueue {
  send(messages: readonly { message: DeliveryMessage; delaySeconds: number }[]): Promise<void>;
}

/** A replay: the feed is paged from `nextSequence` up to `untilSequence` by the delivery worker. */
export interface Replay {
  id: string;
  organizationId: string;
  endpointId: string;
  nextSequence: number;
  untilSequence: number;
  fromUtc: string | null;
  status: 'running' | 'done';
  createdAt: string;
}

export interface ReplayStorage<Write = unknown> {
  createWrites(replay: Replay): Write[];
  get(organizationId: string, replayId: string): Promise<Replay | undefined>;
  /** Moves the position on, conditioned on the one read: false when another worker moved it. Ending frees the endpoint for another replay. */
  advance(replay: Replay, nextSequence: number, done: boolean): Promise<boolean>;
  /** A page that waits under the cap: the replay is not counted lost before `untilMs` plus the grace (conditioned on the position read). */
  postpone(replay: Replay, untilMs: number): Promise<boolean>;
}

/** How many of an organization's replay tasks are not finished yet, counted up to `atMost` (docs/webhooks.md "Replaying"). */
export interface ReplayLoad {
  tasksInFlight(organizationId: string, atMost: number): Promise<number>;
}

/** An event as the delivery flows read it: the envelope's JSON exactly as the feed serves it. */
export interface StoredEventText {
  sequence: number;
  eventId: string;
  type: string;
  committedAt: string;
  envelopeJson: string;
}

export interface EventSource {
  find(organizationId: string, sequence: number): Promise<StoredEventText | undefined>;
  /** The event at `sequence` with the others committed with it (one stored batch, one read); none if it is not stored. */
  findWithBatch?(organizationId: string, sequence: number): Promise<StoredEventText[]>;
  readFrom(organizationId: string, fromSequence: number, maxItems: number): Promise<StoredEventText[]>;
  /**
   * One page from a position: at most `maxEvents` events, possibly fewer though more follow (a
   * Query stops at 1 MB); `more` is false only when no event after the page's last is stored.
   */
  readPage(organizationId: string, fromSequence: number, maxEvents: number): Promise<{ events: StoredEventText[]; more: boolean }>;
  lastSequence(organizationId: string): Promise<number>;
}

/** The fair shares of attempts in flight (docs/webhooks.md "Fairness"), across every worker. */
export interface AttemptGate {
  /**
   * Takes a slot for one attempt to the endpoint; refused when its organization's or its own share
   * is in use. `waitedMs`: how long the attempt sat in the queue past its due time, when known (an
   * organization whose attempts wait for the worker is waiting: others' bursts make room).
   */
  acquire(request: {
    organizationId: string;
    endpointId: string;
    leaseId: string;
    waitedMs?: number | null;
  }): Promise<{ admitted: true } | { admitted: false; reason: ShareRefusal }>;
  /** Gives the slot back; `timedOut` feeds the endpoint's circuit breaker and the credit (null: no attempt was made). */
  release(request: { organizationId: string; endpointId: string; leaseId: string; timedOut: boolean | null }): Promise<void>;
}
