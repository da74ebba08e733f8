import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { _Record as StreamRecord } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBStreamEvent } from 'aws-lambda';
import { WORKERS, type StreamWorkerDefinition } from '../../lib/app/workers.ts';
import { dynamoStreamSource, startStreamPoller } from '../../local/stream-poller.ts';
import { eventsOfImage } from '../../lib/platform/dynamo/event-batches.ts';
import { uniqueOrganization } from '../support/api.ts';
import { commit, eventDraft, tableName } from '../support/events.ts';

/**
 * The local stand-in for the DynamoDB Streams event source mapping (local/stream-poller.ts) on
 * DynamoDB Local's stream of the events table: a failed batch is read again, an acknowledged one
 * never, also by a poller started afresh from the same position file (a restart).
 */

const directory = mkdtempSync(join(tmpdir(), 'stream-poller-'));
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const worker = WORKERS.find((candidate): candidate is StreamWorkerDefinition => candidate.trigger === 'stream') as StreamWorkerDefinition;

/** The event ids in records' new images: a batch's events in order (lib/platform/dynamo/event-batches.ts). */
const eventIdsOf = (records: readonly StreamRecord[]) =>
  records.flatMap((record) => {
    const image = record.dynamodb?.NewImage;
    const events = image ? (eventsOfImage(image) ?? []) : [];
    return events.map((event) => (JSON.parse(event.envelopeJson) as { id: string }).id);
  });

/** Reads until the records of `ids` have all been seen (other tests' events pass by too). */
async function readUntil(source: Awaited<ReturnType<typeof dynamoStreamSource>>, ids: readonly string[], settle: 'ack' | 'fail'): Promise<string[]> {
  const seen: string[] = [];
  const deadline = Date.now() + 20_000;
  while (!ids.every((id) => seen.includes(id))) {
    if (Date.now() > deadline) throw new Error(`saw ${seen.length} of the ${ids.length} events`);
    const records = await source.receive(100);
    if (records.length === 0) continue;
    seen.push(...eventIdsOf(records).filter((id) => ids.includes(id)));
    if (settle === 'ack' || !ids.every((id) => seen.includes(id))) await source.ack(records);
    else await source.fail(records);
  }
  return seen;
}

describe('the local stream poller', () => {
  it('reads a failed batch again, and after a restart neither re-reads what was acknowledged nor loses what was not', async () => {
    const positionFile = join(directory, 'position.json');
    const options = {
      worker,
      tableName: tableName('events'),
      positionFile,
      loadHandler: () => Promise.reject(new Error('not used')),
      idleMs: 20,
      retryDelayMs: 10,
      log: () => undefined,
    };
    const organizationId = uniqueOrganization();
    const first = await dynamoStreamSource(options);
    const { events: early } = await commit(organizationId, [eventDraft('item.created')]);
    // Read everything up to this event, acknowledging all: the position is after it.
    await readUntil(
      first,
      early.map((event) => event.id),
      'ack',
    );

    const { events: later } = await commit(organizationId, [eventDraft('item.updated')]);
    // Failed: read again by the same poller.
    const failedOnce = await readUntil(
      first,
      later.map((event) => event.id),
      'fail',
    );
    expect(failedOnce).toEqual(later.map((event) => event.id));
    first.close();

    // A restart from the position file: the failed (unacknowledged) event comes again, the acknowledged one never.
    const restarted = await dynamoStreamSource(options);
    const seen: string[] = [];
    const deadline = Date.now() + 10_000;
    while (!seen.includes(later[0]?.id ?? '') && Date.now() < deadline) {
      const records = await restarted.receive(100);
      seen.push(...eventIdsOf(records));
      if (records.length > 0) await restarted.ack(records);
    }
    restarted.close();
    expect(seen).toContain(later[0]?.id);
    expect(seen).not.toContain(early[0]?.id);
  });

  it("hands an invocation at most the worker's batch size of records, one stream batch at a time", async () => {
    // Prepare: the position at the stream's end, then five events committed one by one (five records)
    const positionFile = join(directory, 'batch-size.json');
    const small = { ...worker, batchSize: 2 };
    const options = {
      worker: small,
      tableName: tableName('events'),
      positionFile,
      loadHandler: () => Promise.reject(new Error('not used')),
      idleMs: 20,
      retryDelayMs: 10,
      log: () => undefined,
    };
    const organizationId = uniqueOrganization();
    const { events: marker } = await commit(organizationId, [eventDraft('item.created')]);
    const reader = await dynamoStreamSource(options);
    await readUntil(
      reader,
      marker.map((event) => event.id),
      'ack',
    );
    reader.close();
    const ids: string[] = [];
    for (let index = 0; index < 5; index += 1) ids.push(...(await commit(organizationId, [eventDraft('item.updated')])).events.map((event) => event.id));
    const invocations: { records: number; ids: string[] }[] = [];
    let running = 0;
    let overlapped = false;

    // Act
    const poller = await startStreamPoller({
      ...options,
      loadHandler: () =>
        Promise.resolve(async (event: DynamoDBStreamEvent) => {
          running += 1;
          if (running > 1) overlapped = true;
          invocations.push({ records: event.Records.length, ids: eventIdsOf(event.Records as unknown as StreamRecord[]) });
          await new Promise((resolve) => setTimeout(resolve, 20));
          running -= 1;
        }),
    });
    const deadline = Date.now() + 20_000;
    while (!ids.every((id) => invocations.some((invocation) => invocation.ids.includes(id))) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    await poller.stop();

    // Assess: every event arrived, no invocation held more than 2 records, and none ran beside another
    expect(ids.filter((id) => !invocations.some((invocation) => invocation.ids.includes(id)))).toEqual([]);
    expect(Math.max(...invocations.map((invocation) => invocation.records))).toBeLessThanOrEqual(2);
    expect(overlapped).toBe(false);
  });
});
