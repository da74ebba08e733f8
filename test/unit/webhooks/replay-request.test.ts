import { describe, expect, it } from 'vitest';
import type { DeliveryMessage, Replay } from '../../../lib/webhooks/domain/ports.ts';
import { commitReplayRequest } from '../../../lib/webhooks/domain/replay-request.ts';

/** A replay request queues its first page only once its record committed (docs/webhooks.md "Replaying"). */

const replay: Replay = {
  id: 'whr_01KJPX6ZT8MKYT6YPE0ZSHBVX3',
  organizationId: 'org_1',
  endpointId: 'whe_01KJPX6ZT8MKYT6YPE0ZSHBVX4',
  nextSequence: 1,
  untilSequence: 9,
  fromUtc: null,
  status: 'running',
  createdAt: '2026-11-21T12:00:00.000Z',
};

function recordingQueue(steps: string[], failing = false) {
  const sent: DeliveryMessage[] = [];
  return {
    sent,
    queue: {
      send: async (messages: readonly { message: DeliveryMessage; delaySeconds: number }[]) => {
        steps.push('send');
        if (failing) throw new Error('queue unavailable');
        sent.push(...messages.map((entry) => entry.message));
      },
    },
  };
}

describe('commitReplayRequest', () => {
  it('queues nothing when the transaction fails', async () => {
    // Prepare
    const steps: string[] = [];
    const { queue, sent } = recordingQueue(steps);

    // Act
    const outcome = commitReplayRequest({ queue }, replay, () => Promise.reject(new Error('TransactionCanceledException')));

    // Assess
    await expect(outcome).rejects.toThrow('TransactionCanceledException');
    expect(sent).toEqual([]);
    expect(steps).toEqual([]);
  });

  it('queues the first page after the commit', async () => {
    // Prepare
    const steps: string[] = [];
    const { queue, sent } = recordingQueue(steps);

    // Act
    const response = await commitReplayRequest({ queue }, replay, async () => {
      steps.push('commit');
      return 'committed';
    });

    // Assess
    expect(response).toBe('committed');
    expect(steps).toEqual(['commit', 'send']);
    expect(sent).toEqual([expect.objectContaining({ kind: 'replay', organizationId: 'org_1', replayId: replay.id })]);
  });

  it('answers the committed response when the send fails after the commit, and says so', async () => {
    // Prepare
    const steps: string[] = [];
    const logged: string[] = [];
    const { queue } = recordingQueue(steps, true);

    // Act
    const response = await commitReplayRequest({ queue, log: (message) => logged.push(message) }, replay, async () => 'committed');

    // Assess
    expect(response).toBe('committed');
    expect(logged).toHaveLength(1);
  });
});
