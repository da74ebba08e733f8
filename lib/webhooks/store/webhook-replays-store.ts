import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { replaySweepAt } from '../domain/sweep-at.ts';
import type { Replay, ReplayStorage } from '../domain/ports.ts';
import { replayInProgress } from '../domain/replay-limits.ts';
import { documentClient } from '../../platform/aws/dynamodb-client.ts';
import { entityItem } from '../../platform/dynamo/entity.ts';
import { webhookActiveReplayEntity, webhookReplayEntity } from './entities.ts';
import type { StoreWrite } from '../../platform/dynamo/transaction-writer.ts';
import { replayDueKeys } from './webhook-task-index.ts';

/**
 * Replays (docs/webhooks.md "Replaying"): the request's record and its worker's position. A
 * running replay sits in the due index under the time its page message counts as lost
 * (lib/webhooks/store/webhook-task-index.ts), moved on by every page, and holds its endpoint's
 * active-replay item, put with a condition in the request's transaction (so a second replay of
 * the endpoint is refused) and deleted in the same transaction as the replay's end.
 */

const RETENTION_SECONDS = 30 * 86_400;

export class WebhookReplaysStore implements ReplayStorage<StoreWrite> {
  constructor(private readonly tableName: string) {}

  createWrites(replay: Replay): StoreWrite[] {
    const ttl = Math.floor(Date.parse(replay.createdAt) / 1000) + RETENTION_SECONDS;
    const { organizationId, endpointId, id } = replay;
    return [
      {
        item: {
          Put: {
            TableName: this.tableName,
            Item: entityItem(
              webhookReplayEntity,
              { organizationId, replayId: id },
              { replay, ttl, ...replayDueKeys(replay, replaySweepAt(Date.parse(replay.createdAt))) },
            ),
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
      },
      {
        item: {
          Put: {
            TableName: this.tableName,
            Item: entityItem(webhookActiveReplayEntity, { organizationId, endpointId }, { replayId: id, ttl }),
            // One whose TTL has passed but DynamoDB has not deleted yet holds nothing.
            ConditionExpression: 'attribute_not_exists(pk) OR #ttl < :now',
            ExpressionAttributeNames: { '#ttl': 'ttl' },
            ExpressionAttributeValues: { ':now': Math.floor(Date.parse(replay.createdAt) / 1000) },
          },
        },
        onConditionFailed: async () => replayInProgress(endpointId, await this.runningReplayOf(organizationId, endpointId)),
      },
    ];
  }

  async get(organizationId: string, replayId: string): Promise<Replay | undefined> {
    const { Item } = await documentClient.send(
      new GetCommand({ TableName: this.tableName, Key: webhookReplayEntity.key({ organizationId, replayId }), ConsistentRead: true }),
    );
    return Item?.replay as Replay | undefined;
  }

  /** The id of the endpoint's running replay, if one holds it. */
  async runningReplayOf(organizationId: string, endpointId: string): Promise<string | undefined> {
    const { Item } = await documentClient.send(
      new GetCommand({ TableName: this.tableName, Key: webhookActiveReplayEntity.key({ organizationId, endpointId }), ConsistentRead: true }),
    );
    return typeof Item?.replayId === 'string' ? Item.replayId : undefined;
  }

  async advance(replay: Replay, nextSequence: number, done: boolean): Promise<boolean> {
    const due = replayDueKeys(replay, replaySweepAt(Date.now()));
    const update = {
      TableName: this.tableName,
      Key: webhookReplayEntity.key({ organizationId: replay.organizationId, replayId: replay.id }),
      UpdateExpression: `SET #replay.#next = :next, #replay.#status = :status${done ? ' REMOVE gsi1pk, gsi1sk' : ', gsi1pk = :duePartition, gsi1sk = :dueSortKey'}`,
      ConditionExpression: '#replay.#next = :read AND #replay.#status = :running',
      ExpressionAttributeNames: { '#replay': 'replay', '#next': 'nextSequence', '#status': 'status' },
      ExpressionAttributeValues: {
        ':next': nextSequence,
        ':status': done ? 'done' : 'running',
        ':read': replay.nextSequence,
        ':running': 'running',
        ...(done ? {} : { ':duePartition': due.gsi1pk, ':dueSortKey': due.gsi1sk }),
      },
    };
    try {
      if (!done) {
        await documentClient.send(new UpdateCommand(update));
        return true;
      }
      // The end frees the endpoint for its next replay, in the same transaction.
      await documentClient.send(
        new TransactWriteCommand({
          TransactItems: [
            { Update: update },
            {
              Delete: {
                TableName: this.tableName,
                Key: webhookActiveReplayEntity.key({ organizationId: replay.organizationId, endpointId: replay.endpointId }),
                // A replay requested before the active-replay item existed holds none.
                ConditionExpression: 'attribute_not_exists(pk) OR #replayId = :replayId',
                ExpressionAttributeNames: { '#replayId': 'replayId' },
                ExpressionAttributeValues: { ':replayId': replay.id },
              },
            },
          ],
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      if (error instanceof TransactionCanceledException && (error.CancellationReasons ?? [])[0]?.Code === 'ConditionalCheckFailed') return false;
      throw error;
    }
  }

  async postpone(replay: Replay, untilMs: number): Promise<boolean> {
    const due = replayDueKeys(replay, replaySweepAt(untilMs));
    try {
      await documentClient.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: webhookReplayEntity.key({ organizationId: replay.organizationId, replayId: replay.id }),
          UpdateExpression: 'SET gsi1pk = :duePartition, gsi1sk = :dueSortKey',
          ConditionExpression: '#replay.#next = :read AND #replay.#status = :running',
          ExpressionAttributeNames: { '#replay': 'replay', '#next': 'nextSequence', '#status': 'status' },
          ExpressionAttributeValues: { ':duePartition': due.gsi1pk, ':dueSortKey': due.gsi1sk, ':read': replay.nextSequence, ':running': 'running' },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }
}
