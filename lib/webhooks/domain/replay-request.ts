import type { DeliveryQueue, Replay } from './ports.ts';

export interface ReplayRequestPorts {
  queue: DeliveryQueue;
  clock?: () => Date;
  log?: (message: string, fields: Record<string, unknown>) => void;
}

/**
 * The replay request's commit, then its first page's message (docs/webhooks.md "Replaying"): the
 * message is sent only once the replay's record has committed, so a transaction that fails leaves
 * nothing queued. A send that fails after the commit cannot undo it: the request still answers
 * its committed 202, the failure is logged with the replay's id, and the due-task sweep sends the
 * page once the replay's sweep-at has passed (docs/webhooks.md "The due-task sweep").
 */
export async function commitReplayRequest<R>(ports: ReplayRequestPorts, replay: Replay, commit: () => Promise<R>): Promise<R> {
  const response = await commit();
  const sentAt = (ports.clock?.() ?? new Date()).getTime();
  try {
    await ports.queue.send([{ message: { kind: 'replay', organizationId: replay.organizationId, replayId: replay.id, sentAt }, delaySeconds: 0 }]);
  } catch (error) {
    ports.log?.('webhook replay committed but its first page was not queued', {
      replayId: replay.id,
      organizationId: replay.organizationId,
      error: (error as Error).message,
    });
  }
  return response;
}
