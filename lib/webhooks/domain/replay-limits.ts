import { ApiError } from '../../platform/core/errors.ts';

/**
 * What bounds replays (docs/webhooks.md "Replaying"): one running replay per endpoint, and per
 * organization a cap on the replay tasks not finished yet. A replay page is created only while
 * the organization's unfinished replay tasks leave room for a whole page under the cap; otherwise
 * the page waits and looks again, so live deliveries never queue behind more than the cap of one
 * tenant's replayed events.
 */

/** Replay tasks of one organization not finished yet (pending or under way), at most. */
export const MAX_REPLAY_TASKS_IN_FLIGHT = 500;

/** How long a replay page waits before it looks at the cap again. */
export const REPLAY_WAIT_SECONDS = 15;

export function replayInProgress(endpointId: string, runningReplayId: string | undefined): ApiError {
  const which = runningReplayId === undefined ? 'A replay' : `Replay ${runningReplayId}`;
  return new ApiError(409, 'customer-api.webhooks.replay-in-progress', 'Replay in progress', {
    detail: `${which} of webhook endpoint ${endpointId} is still running; an endpoint runs one replay at a time. Ask again once it has ended (its events have been queued), or replay from a later point then.`,
  });
}
