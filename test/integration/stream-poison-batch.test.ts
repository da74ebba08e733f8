import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import type { DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { eventsOfImage } from '../../lib/platform/dynamo/event-batches.ts';
import { WORKERS, type StreamWorkerDefinition } from '../../lib/app/workers.ts';
import { startStreamPoller, type StreamBatchFailure } from '../../local/stream-poller.ts';
import { uniqueOrganization } from '../support/api.ts';
import { commit, eventDraft, tableName } from '../support/events.ts';

/**
 * A batch that keeps failing ends as on Lambda's stream mapping (bisect on error, `maxRetries`,
 * on-failure destination: docs/operations.md "Workers (import queue and sweepers)"): the poison
 * record alone is retried `maxRetries` times, handed to the on-failure destination, and the stream
 * goes on past it. Nothing resets the count but a batch that succeeded.
 */

const directory = mkdtempSync(join(tmpdir(), 'stream-poison-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const dispatcher = WORKERS.find((candidate): candidate is StreamWorkerDefinition => candidate.trigger === 'stream') as StreamWorkerDefinition;
const MAX_RETRIES = 2;

const eventIdsOf = (records: readonly DynamoDBRecord[]) =>
  records.flatMap((record) => {
    // The stream's images are marshalled alike in both shapes.
    const image = record.dynamodb?.NewImage as Parameters<typeof eventsOfImage>[0] | undefined;
    return (image ? (eventsOfImage(image) ?? []) : []).map((event) => (JSON.parse(event.envelopeJson) as { id: string }).id);
  });

describe('the local stream poller and a poison batch', () => {
  it('retries the poison record alone maxRetries times, sends it to the on-failure destination and reads on', { timeout: 60_000 }, async () => {
    // Prepare
    const organizationId = uniqueOrganization();
    const { events: poison } = await commit(organizationId, [eventDraft('item.created')]);
    const { events: after } = await commit(organizationId, [eventDraft('item.updated')]);
    const poisonId = poison[0]?.id ?? '';
    const afterId = after[0]?.id ?? '';
    /** The number of records of each batch that held the poison. */
    const poisonAttempts: number[] = [];
    const handled: string[] = [];
    const failures: StreamBatchFailure[] = [];
    const handler = async (event: DynamoDBStreamEvent) => {
      const ids = eventIdsOf(event.Records);
      if (ids.includes(poisonId)) {
        poisonAttempts.push(event.Records.length);
        throw new Error('poison');
      }
      handled.push(...ids);
    };

    // Act
    const poller = await startStreamPoller({
      worker: { ...dispatcher, maxRetries: MAX_RETRIES },
      tableName: tableName('events'),
      positionFile: join(directory, 'position.json'),
      loadHandler: () => Promise.resolve(handler),
      idleMs: 20,
      retryDelayMs: 10,
      log: () => undefined,
      onFailure: async (failure) => void failures.push(failure),
    });
    const deadline = Date.now() + 30_000;
    while (!handled.includes(afterId) && Date.now() < deadline) await sleep(50);
    await poller.stop();

    // Assess
    expect(handled).toContain(afterId);
    expect(handled).not.toContain(poisonId);
    expect(poisonAttempts.filter((size) => size === 1)).toHaveLength(MAX_RETRIES + 1);
    expect(failures).toHaveLength(1);
    expect(failures[0]).toMatchObject({ batchSize: 1, startSequenceNumber: failures[0]?.endSequenceNumber });
    expect(eventIdsOf(failures[0]?.records ?? [])).toEqual([poisonId]);
  });
});
