import { subscribes } from './endpoint.ts';
import { createTasks, type CommittedEvent, type TaskPlanner } from './dispatch.ts';
import type { DeliveryMessage, EndpointStorage, EventSource, ReplayLoad, ReplayStorage } from './ports.ts';
import { MAX_REPLAY_TASKS_IN_FLIGHT, REPLAY_WAIT_SECONDS } from './replay-limits.ts';

/**
 * A replay, paged by the delivery worker (docs/webhooks.md "Replaying"): each message reads one
 * page of the feed from the replay's position, creates the tasks of the events the endpoint
 * subscribes to (origin = the replay's id, so a retried page never doubles one), moves the
 * position on with a condition on the one read, and hands the rest to a fresh message. Tasks
 * are created in feed order, page after page. A page is created only while its organization's
 * unfinished replay tasks leave room for it under MAX_REPLAY_TASKS_IN_FLIGHT; otherwise it waits
 * (lib/webhooks/domain/replay-limits.ts).
 */

export const REPLAY_PAGE_SIZE = 100;
/** A replay message whose record is not there after this long belongs to a request that never committed. */
const UNCOMMITTED_REPLAY_MS = 5 * 60_000;
const UNCOMMITTED_RECHECK_SECONDS = 2;

export interface ReplayPorts extends TaskPlanner {
  replays: ReplayStorage;
  endpoints: Pick<EndpointStorage, 'all' | 'get'>;
  events: Pick<EventSource, 'readPage'>;
  load: ReplayLoad;
  clock?: () => Date;
}

export async function runReplayPage(
  ports: ReplayPorts,
  message: Extract<DeliveryMessage, { kind: 'replay' }>,
): Promise<'continued' | 'waiting' | 'done' | 'dropped'> {
  const now = (ports.clock?.() ?? new Date()).getTime();
  const replay = await ports.replays.get(message.organizationId, message.replayId);
  if (!replay) {
    // The message is sent once the request has committed (docs/webhooks.md "Replaying"); one
    // queued by code that sent before committing may still arrive first: look again for a while.
    if (now - message.sentAt >= UNCOMMITTED_REPLAY_MS) return 'dropped';
    // Not committed yet (or never): look again shortly, as a fresh delayed message.
    await ports.queue.send([{ message, delaySeconds: UNCOMMITTED_RECHECK_SECONDS }]);
    return 'continued';
  }
  if (replay.status === 'done') return 'dropped';
  const stored = await ports.endpoints.get(replay.organizationId, replay.endpointId);
  if (!stored) {
    await ports.replays.advance(replay, replay.nextSequence, true);
    return 'done';
  }
  // Counted only as far as the decision needs: more than this leaves no room for a whole page.
  const roomLeftUpTo = MAX_REPLAY_TASKS_IN_FLIGHT - REPLAY_PAGE_SIZE;
  if ((await ports.load.tasksInFlight(replay.organizationId, roomLeftUpTo + 1)) > roomLeftUpTo) {
    // Live deliveries and the replay's earlier pages go first; this page looks again after the wait.
    if (!(await ports.replays.postpone(replay, now + REPLAY_WAIT_SECONDS * 1000))) return 'dropped';
    await ports.queue.send([{ message: { ...message, sentAt: now }, delaySeconds: REPLAY_WAIT_SECONDS }]);
    return 'waiting';
  }
  const limit = Math.min(REPLAY_PAGE_SIZE, replay.untilSequence - replay.nextSequence + 1);
  const { events: page, more } = limit > 0 ? await ports.events.readPage(replay.organizationId, replay.nextSequence, limit) : { events: [], more: false };
  const wanted = page.filter(
    (event) =>
      event.sequence <= replay.untilSequence && subscribes(stored.endpoint, event.type) && (replay.fromUtc === null || event.committedAt >= replay.fromUtc),
  );
  const pairs = wanted.map((event) => ({
    event: {
      organizationId: replay.organizationId,
      sequence: event.sequence,
      eventId: event.eventId,
      type: event.type,
      committedAt: event.committedAt,
    } satisfies CommittedEvent,
    endpointId: replay.endpointId,
    origin: replay.id,
  }));
  await createTasks(ports, pairs, () => now);
  // Paged by position: a page shorter than asked is not the end (a Query stops at 1 MB, and one
  // batch item may hold many events: docs/events.md "How events are stored"); only the store
  // saying nothing follows, or reaching the replay's last event, is.
  const last = page.at(-1)?.sequence;
  const nextSequence = last === undefined ? (more ? replay.nextSequence : replay.untilSequence + 1) : last + 1;
  const done = nextSequence > replay.untilSequence || !more;
  if (!(await ports.replays.advance(replay, nextSequence, done))) return 'dropped';
  if (!done) await ports.queue.send([{ message: { ...message, sentAt: now }, delaySeconds: 0 }]);
  return done ? 'done' : 'continued';
}
