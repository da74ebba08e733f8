import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  DescribeStreamCommand,
  DynamoDBStreamsClient,
  GetRecordsCommand,
  GetShardIteratorCommand,
  type _Record as StreamRecord,
  type Shard,
} from '@aws-sdk/client-dynamodb-streams';
import { DescribeTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Context, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import type { StreamWorkerDefinition } from '../lib/app/workers.ts';
import { startEventSourcePoller, type EventSource, type EventSourcePoller } from './event-source-poller.ts';

/**
 * The local stand-in for Lambda's DynamoDB Streams event source mapping: a DynamoDB Streams source
 * for the generic poller of local/event-source-poller.ts, reading DynamoDB Local's stream of a
 * table. As the mapping infra/background-flow.ts configures (docs/operations.md "Workers (import
 * queue and sweepers)"): one batch per shard at a time, in order; a failed batch of several records
 * is split in halves and the first half tried again (bisect on error; a split spends no retry); a
 * failed single record is tried again (after `retryDelayMs`) until it succeeds or `maxRetries` is
 * spent, then handed to `onFailure` (the on-failure destination) and skipped. Only a batch that
 * succeeded resets the count.
 *
 * Its position (the last record acknowledged, per shard) is written to `positionFile` after every
 * acknowledged batch, so a restart resumes right after it: nothing acknowledged is read again and
 * nothing unacknowledged is lost (records are kept by the stream for 24 h).
 */

interface Position {
  streamArn: string;
  /** Last acknowledged sequence number per shard; `done` once a closed shard is read to its end. */
  shards: Record<string, { after?: string; done?: boolean }>;
}

/** What the on-failure destination is told of a record skipped after every retry, as Lambda's `DDBStreamBatchInfo` (plus the records, for local eyes). */
export interface StreamBatchFailure {
  streamArn: string;
  shardId: string;
  startSequenceNumber: string;
  endSequenceNumber: string;
  batchSize: number;
  records: DynamoDBRecord[];
}

export interface StreamPollerOptions {
  worker: StreamWorkerDefinition;
  tableName: string;
  positionFile: string;
  loadHandler: (entry: string) => Promise<(event: DynamoDBStreamEvent, context: Context) => Promise<unknown>>;
  log?: (line: string) => void;
  /** Pause between reads that found nothing. Default 100 ms. */
  idleMs?: number;
  retryDelayMs?: number;
  /** The on-failure destination. Default: a log line. */
  onFailure?: (failure: StreamBatchFailure) => Promise<void>;
  endpoint?: string;
  region?: string;
}

function readPosition(path: string): Position | undefined {
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Position;
  } catch {
    return undefined;
  }
}

function writePosition(path: string, position: Position): void {
  mkdirSync(dirname(path), { recursive: true });
  // Write then rename: a crash mid-write never leaves a torn position.
  writeFileSync(`${path}.tmp`, JSON.stringify(position));
  renameSync(`${path}.tmp`, path);
}

function toLambdaRecord(record: StreamRecord, eventSourceARN: string, region: string): DynamoDBRecord {
  // The SDK's and Lambda's shapes are the same JSON; the attribute values are marshalled in both.
  return {
    eventID: record.eventID,
    eventName: record.eventName as DynamoDBRecord['eventName'],
    eventVersion: record.eventVersion ?? '1.1',
    eventSource: 'aws:dynamodb',
    awsRegion: region,
    eventSourceARN,
    dynamodb: {
      ...(record.dynamodb?.Keys ? { Keys: record.dynamodb.Keys as never } : {}),
      ...(record.dynamodb?.NewImage ? { NewImage: record.dynamodb.NewImage as never } : {}),
      SequenceNumber: record.dynamodb?.SequenceNumber,
      SizeBytes: record.dynamodb?.SizeBytes,
      StreamViewType: record.dynamodb?.StreamViewType as 'NEW_IMAGE',
      ApproximateCreationDateTime: record.dynamodb?.ApproximateCreationDateTime ? record.dynamodb.ApproximateCreationDateTime.getTime() / 1000 : undefined,
    },
  };
}

/** DynamoDB Local's stream of a table as an event source. */
export async function dynamoStreamSource(options: StreamPollerOptions): Promise<EventSource<StreamRecord, DynamoDBStreamEvent>> {
  const region = options.region ?? process.env.AWS_REGION ?? 'us-east-1';
  const log = options.log ?? ((line: string) => console.error(line));
  const endpoint = options.endpoint ?? process.env.AWS_ENDPOINT_URL_DYNAMODB;
  const tables = new DynamoDBClient({ region, ...(endpoint ? { endpoint } : {}) });
  const streams = new DynamoDBStreamsClient({ region, ...(endpoint ? { endpoint } : {}) });
  const { Table } = await tables.send(new DescribeTableCommand({ TableName: options.tableName }));
  tables.destroy();
  const streamArn = Table?.LatestStreamArn;
  if (!streamArn) throw new Error(`Table ${options.tableName} has no stream; its spec must set 'stream'`);
  const eventSourceArn: string = streamArn;
  const saved = readPosition(options.positionFile);
  // Another stream (the table was recreated): its old positions mean nothing.
  const position: Position = saved?.streamArn === streamArn ? saved : { streamArn, shards: {} };
  const idleMs = options.idleMs ?? 100;
  const retryDelayMs = options.retryDelayMs ?? 1000;

  let shardId: string | undefined;
  let iterator: string | undefined;
  /** A batch is with the handler: the next read waits for it (one batch per shard at a time). */
  let inFlight = false;
  /** Records read from the stream and not acknowledged yet, in order; the next batches come from them first. */
  let unsettled: StreamRecord[] = [];
  /** How many of `unsettled` the next batch holds: all of them, or a half after a failure (bisect). */
  let nextBatchLength = 0;
  /** Failed attempts of the current single-record batch; only a batch that succeeded resets it. */
  let failures = 0;
  /** The iterator after `unsettled`: where reading goes on once they are all acknowledged. */
  let afterUnsettled: string | undefined;

  async function nextShard(): Promise<void> {
    const shards: Shard[] = [];
    let start: string | undefined;
    do {
      const { StreamDescription } = await streams.send(new DescribeStreamCommand({ StreamArn: streamArn, ExclusiveStartShardId: start }));
      shards.push(...(StreamDescription?.Shards ?? []));
      start = StreamDescription?.LastEvaluatedShardId;
    } while (start);
    // A shard is read once its parent is done (or gone), as Lambda does.
    const known = new Set(shards.map((shard) => shard.ShardId));
    const next = shards.find(
      (shard) =>
        shard.ShardId &&
        !position.shards[shard.ShardId]?.done &&
        (!shard.ParentShardId || !known.has(shard.ParentShardId) || position.shards[shard.ParentShardId]?.done),
    );
    shardId = next?.ShardId;
    iterator = shardId ? await iteratorAfter(shardId) : undefined;
  }

  async function iteratorAfter(id: string): Promise<string | undefined> {
    const after = position.shards[id]?.after;
    const { ShardIterator } = await streams.send(
      new GetShardIteratorCommand({
        StreamArn: streamArn,
        ShardId: id,
        ...(after ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: after } : { ShardIteratorType: 'TRIM_HORIZON' }),
      }),
    );
    return ShardIterator;
  }

  const onFailure =
    options.onFailure ??
    ((failure: StreamBatchFailure) => {
      log(`[${options.worker.id}] skipping ${failure.batchSize} stream records after ${options.worker.maxRetries} retries (no on-failure destination)`);
      return Promise.resolve();
    });

  async function skipToOnFailure(records: readonly StreamRecord[]): Promise<void> {
    await onFailure({
      streamArn: eventSourceArn,
      shardId: shardId ?? '',
      startSequenceNumber: records[0]?.dynamodb?.SequenceNumber ?? '',
      endSequenceNumber: records.at(-1)?.dynamodb?.SequenceNumber ?? '',
      batchSize: records.length,
      records: records.map((record) => toLambdaRecord(record, eventSourceArn, region)),
    });
    // Sent where it belongs: the stream goes on past it, as the mapping does.
    await source.ack(records);
  }

  const source: EventSource<StreamRecord, DynamoDBStreamEvent> = {
    noun: ['record', 'records'],
    async receive(maxRecords) {
      if (inFlight) {
        await sleep(idleMs);
        return [];
      }
      if (unsettled.length > 0) {
        inFlight = true;
        return unsettled.slice(0, nextBatchLength);
      }
      if (!iterator) await nextShard();
      if (!iterator || !shardId) {
        await sleep(idleMs);
        return [];
      }
      let answer;
      try {
        answer = await streams.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: maxRecords }));
      } catch (error) {
        // An iterator taken on an empty shard or left idle goes stale (DynamoDB Local says
        // TrimmedDataAccess, AWS ExpiredIterator): a fresh one from the acknowledged position.
        if (!['TrimmedDataAccessException', 'ExpiredIteratorException'].includes((error as Error).name)) throw error;
        iterator = await iteratorAfter(shardId);
        await sleep(idleMs);
        return [];
      }
      const { Records = [], NextShardIterator } = answer;
      if (Records.length > 0) {
        inFlight = true;
        unsettled = Records;
        nextBatchLength = Records.length;
        afterUnsettled = NextShardIterator ?? undefined;
        return Records;
      }
      if (NextShardIterator === undefined || NextShardIterator === null) {
        // The shard is closed and read to its end: its children come next.
        position.shards[shardId] = { ...position.shards[shardId], done: true };
        writePosition(options.positionFile, position);
        iterator = undefined;
        return [];
      }
      iterator = NextShardIterator;
      await sleep(idleMs);
      return [];
    },
    toEvent: (records) => ({ Records: records.map((record) => toLambdaRecord(record, streamArn, region)) }),
    itemIdentifier: (record) => record.dynamodb?.SequenceNumber ?? '',
    async ack(records) {
      // Nothing succeeded: no progress, and no reason to forget the failures counted.
      const last = records.at(-1)?.dynamodb?.SequenceNumber;
      if (!last || !shardId) return;
      position.shards[shardId] = { ...position.shards[shardId], after: last };
      writePosition(options.positionFile, position);
      // The records acknowledged are the first of `unsettled` (batches are handed out in order).
      unsettled = unsettled.slice(records.length);
      nextBatchLength = unsettled.length;
      // Read on from the iterator GetRecords gave (one call fewer per batch); a closed shard's end is found by the next read.
      if (unsettled.length === 0) iterator = afterUnsettled ?? (await iteratorAfter(shardId));
      failures = 0;
      inFlight = false;
    },
    async fail(records) {
      if (records.length > 1) {
        // Bisect on error: the first half alone next, the rest after it; a split spends no retry.
        nextBatchLength = Math.ceil(records.length / 2);
        inFlight = false;
        return;
      }
      failures += 1;
      if (failures > options.worker.maxRetries) {
        await skipToOnFailure(records);
        return;
      }
      await sleep(retryDelayMs);
      nextBatchLength = records.length;
      inFlight = false;
    },
    release() {
      // Never handed to the handler: `unsettled` still holds them, the next receive hands them out again.
      inFlight = false;
      return Promise.resolve();
    },
    close() {
      streams.destroy();
    },
  };
  return source;
}

/** The stream event source mapping of one stream worker of lib/app/workers.ts. */
export async function startStreamPoller(options: StreamPollerOptions): Promise<EventSourcePoller> {
  const { worker } = options;
  const source = await dynamoStreamSource(options);
  return startEventSourcePoller({
    name: worker.id,
    source,
    loadHandler: () => options.loadHandler(worker.handler),
    timeoutSeconds: worker.timeoutSeconds,
    batchSize: Math.min(worker.batchSize, 1000),
    // One batch per shard at a time, in order, as Lambda's mapping (ParallelizationFactor 1).
    concurrency: 1,
    ...(options.log ? { log: options.log } : {}),
  });
}
