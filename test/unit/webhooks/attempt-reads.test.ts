import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { AttemptCaches, AttemptReads } from '../../../lib/webhooks/domain/attempt-reads.ts';
import type { StoredEndpoint } from '../../../lib/webhooks/domain/endpoint.ts';
import type { StoredEventText } from '../../../lib/webhooks/domain/ports.ts';

/** The delivery worker's kept reads (lib/webhooks/domain/attempt-reads.ts): what is read again, and when. */

function sources(envelopeBytes = 10) {
  const reads = { endpoints: [] as string[], events: [] as string[] };
  let version = 1;
  return {
    reads,
    bump: () => (version += 1),
    endpoints: {
      get: async (organizationId: string, endpointId: string) => {
        reads.endpoints.push(`${organizationId}/${endpointId}`);
        return { organizationId, endpoint: { id: endpointId }, version } as unknown as StoredEndpoint;
      },
    },
    events: {
      find: async (organizationId: string, sequence: number): Promise<StoredEventText> => {
        reads.events.push(`${organizationId}/${sequence}`);
        return { sequence, eventId: `evt_${sequence}`, type: 'item.created', committedAt: '2026-01-01T00:00:00.000Z', envelopeJson: 'x'.repeat(envelopeBytes) };
      },
    },
  };
}

describe('attempt reads', () => {
  it('keeps an endpoint for its time, then reads it again and sees the change', async () => {
    const source = sources();
    const reads = new AttemptReads(source, new AttemptCaches({ endpointMs: 40, eventBytes: 0 }));
    expect((await reads.endpoint('org_a', 'whe_1'))?.version).toBe(1);
    source.bump();
    expect((await reads.endpoint('org_a', 'whe_1'))?.version).toBe(1);
    expect(source.reads.endpoints).toEqual(['org_a/whe_1']);
    await sleep(60);
    expect((await reads.endpoint('org_a', 'whe_1'))?.version).toBe(2);
    expect(source.reads.endpoints).toHaveLength(2);
  });

  it('reads an endpoint this container changed again at once', async () => {
    const source = sources();
    const reads = new AttemptReads(source, new AttemptCaches({ endpointMs: 60_000, eventBytes: 0 }));
    await reads.endpoint('org_a', 'whe_1');
    source.bump();
    reads.forgetEndpoint('org_a', 'whe_1');
    expect((await reads.endpoint('org_a', 'whe_1'))?.version).toBe(2);
  });

  it('keeps endpoints and events apart by organization', async () => {
    const source = sources();
    const reads = new AttemptReads(source, new AttemptCaches({ endpointMs: 60_000, eventBytes: 1000 }));
    await Promise.all([reads.endpoint('org_a', 'whe_1'), reads.event('org_a', 7)]);
    await Promise.all([reads.endpoint('org_b', 'whe_1'), reads.event('org_b', 7)]);
    await Promise.all([reads.endpoint('org_a', 'whe_1'), reads.event('org_a', 7), reads.event('org_b', 7)]);
    expect(source.reads).toEqual({ endpoints: ['org_a/whe_1', 'org_b/whe_1'], events: ['org_a/7', 'org_b/7'] });
  });

  it('keeps envelopes up to its byte budget, least recently used out first, and never one larger than it', async () => {
    const source = sources(400);
    const reads = new AttemptReads(source, new AttemptCaches({ endpointMs: 0, eventBytes: 1000 }));
    for (const sequence of [1, 2, 1, 3, 1, 2]) await reads.event('org_a', sequence);
    // 1 and 2 fit (800 bytes); 3 pushes out 2 (used longest ago), which is read again.
    expect(source.reads.events).toEqual(['org_a/1', 'org_a/2', 'org_a/3', 'org_a/2']);
    const huge = sources(5000);
    const small = new AttemptReads(huge, new AttemptCaches({ endpointMs: 0, eventBytes: 1000 }));
    await small.event('org_a', 1);
    await small.event('org_a', 1);
    expect(huge.reads.events).toHaveLength(2);
  });

  it('reads every time without limits', async () => {
    const source = sources();
    const reads = new AttemptReads(source, new AttemptCaches({ endpointMs: 0, eventBytes: 0 }));
    for (let round = 0; round < 3; round += 1) await Promise.all([reads.endpoint('org_a', 'whe_1'), reads.event('org_a', 1)]);
    expect(source.reads.endpoints).toHaveLength(3);
    expect(source.reads.events).toHaveLength(3);
  });
});

describe('attempt reads of a stored batch', () => {
  /** A source whose events are stored `perBatch` to a batch (1–10, 11–20, … for 10), each read slowed down a little. */
  function batchedSource(perBatch = 10) {
    const reads: number[] = [];
    const concurrency = { now: 0, most: 0 };
    const text = (sequence: number): StoredEventText => ({
      sequence,
      eventId: `evt_${sequence}`,
      type: 'item.created',
      committedAt: '2026-01-01T00:00:00.000Z',
      envelopeJson: `{"n":${sequence}}`,
    });
    return {
      reads,
      concurrency,
      endpoints: { get: async () => undefined },
      events: {
        find: async (_organizationId: string, sequence: number) => text(sequence),
        findWithBatch: async (_organizationId: string, sequence: number) => {
          reads.push(sequence);
          concurrency.now += 1;
          concurrency.most = Math.max(concurrency.most, concurrency.now);
          await sleep(10);
          concurrency.now -= 1;
          const first = Math.floor((sequence - 1) / perBatch) * perBatch + 1;
          return Array.from({ length: perBatch }, (_, index) => text(first + index));
        },
      },
    };
  }

  it("one read keeps every event of the batch: the batch's other events are not read again", async () => {
    const source = batchedSource();
    const reads = new AttemptReads(source, new AttemptCaches({ endpointMs: 0, eventBytes: 1024 }));
    expect((await reads.event('org_a', 3))?.eventId).toBe('evt_3');
    for (const sequence of [1, 2, 4, 10]) expect((await reads.event('org_a', sequence))?.envelopeJson).toBe(`{"n":${sequence}}`);
    expect(source.reads).toEqual([3]);
    expect((await reads.event('org_a', 11))?.eventId).toBe('evt_11');
    expect(source.reads).toEqual([3, 11]);
  });

  it("attempts of one organization's burst wait for the reads on their way: two stored batches of 90 events to 3 endpoints at once, 2 reads", async () => {
    const source = batchedSource(90);
    const reads = new AttemptReads(source, new AttemptCaches({ endpointMs: 0, eventBytes: 1024 * 1024 }));
    const asks = Array.from({ length: 180 }, (_, index) => index + 1).flatMap((sequence) => [sequence, sequence, sequence]);
    const found = await Promise.all(asks.map((sequence) => reads.event('org_a', sequence)));
    expect(found.map((event) => event?.sequence)).toEqual(asks);
    expect(source.reads).toEqual([1, 91]);
  });

  it('events stored one to a batch: an attempt waits two reads at most, then reads its own', async () => {
    const source = batchedSource(1);
    const reads = new AttemptReads(source, new AttemptCaches({ endpointMs: 0, eventBytes: 1024 * 1024 }));
    const found = await Promise.all(Array.from({ length: 20 }, (_, index) => reads.event('org_a', index + 1)));
    expect(found.map((event) => event?.sequence)).toEqual(Array.from({ length: 20 }, (_, index) => index + 1));
    expect(source.reads).toHaveLength(20);
    // After two reads waited for, the rest go at once (not twenty in a row).
    expect(source.concurrency.most).toBeGreaterThanOrEqual(10);
  });
});
