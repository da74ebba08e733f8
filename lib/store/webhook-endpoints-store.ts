import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import type { AuditEvent } from '../domain/audit/types.ts';
import type { PageOf } from '../domain/pagination/page.ts';
import { endpointLimitReached, MAX_WEBHOOK_ENDPOINTS, webhookEndpointNotFound, type DisabledReason, type StoredEndpoint, type WebhookEndpoint } from '../domain/webhooks/endpoint.ts';
import type { EndpointStorage, Replay, ReplayStorage } from '../domain/webhooks/ports.ts';
import { auditPut } from './audit-store.ts';
import { documentClient } from './dynamodb-client.ts';
import { entityItem, envelopeAssignments, readAll, readPage, sortKeyRange } from './entity.ts';
import { WEBHOOK_ENDPOINT_PREFIX, webhookEndpointCountEntity, webhookEndpointEntity, webhookReplayEntity } from './entities.ts';
import { keys } from './keys.ts';
import type { StoreWrite } from './transaction-writer.ts';

/**
 * Webhook endpoints in the inventory table (docs/webhooks.md): one item per endpoint in the
 * organization's webhooks partition, beside a counter item that every create increments and every
 * delete decrements in the same transaction, conditioned on the limit, so two concurrent creates
 * can never pass 16. Secrets are stored sealed only.
 */

type Item = Record<string, unknown>;

function toStored(item: Item): StoredEndpoint {
  return {
    organizationId: item.organizationId as string,
    endpoint: item.endpoint as WebhookEndpoint,
    secrets: item.secrets as StoredEndpoint['secrets'],
    createdAfterSequence: item.createdAfterSequence as number,
    failingSince: (item.failingSince as string | undefined) ?? null,
  };
}

export class WebhookEndpointsStore implements EndpointStorage<StoreWrite> {
  constructor(
    private readonly tableName: string,
    private readonly auditTableName?: string,
  ) {}

  async get(organizationId: string, endpointId: string): Promise<StoredEndpoint | undefined> {
    const { Item } = await documentClient.send(new GetCommand({ TableName: this.tableName, Key: webhookEndpointEntity.key({ organizationId, endpointId }), ConsistentRead: true }));
    return Item ? toStored(Item) : undefined;
  }

  async all(organizationId: string): Promise<StoredEndpoint[]> {
    const items = await readAll({ tableName: this.tableName, partition: { name: 'pk', value: keys.webhookEndpointsOf(organizationId) }, sortKey: { name: 'sk', ...sortKeyRange(WEBHOOK_ENDPOINT_PREFIX) } });
    return items.map(toStored);
  }

  async page(organizationId: string, after: string | undefined, limit: number): Promise<PageOf<StoredEndpoint>> {
    const page = await readPage({
      tableName: this.tableName,
      partition: { name: 'pk', value: keys.webhookEndpointsOf(organizationId) },
      sortKey: { name: 'sk', ...sortKeyRange(WEBHOOK_ENDPOINT_PREFIX) },
      after,
      limit,
    });
    return { items: page.items.map(toStored), last: page.last, more: page.more };
  }

  createWrites(organizationId: string, stored: StoredEndpoint): StoreWrite[] {
    const envelope = envelopeAssignments(webhookEndpointCountEntity);
    return [
      { item: { Put: { TableName: this.tableName, Item: this.item(stored), ConditionExpression: 'attribute_not_exists(pk)' } } },
      {
        item: {
          Update: {
            TableName: this.tableName,
            Key: webhookEndpointCountEntity.key({ organizationId }),
            UpdateExpression: `SET #count = if_not_exists(#count, :zero) + :one, ${envelope.assignments}`,
            ConditionExpression: 'attribute_not_exists(#count) OR #count < :limit',
            ExpressionAttributeNames: { '#count': 'count', ...envelope.names },
            ExpressionAttributeValues: { ':zero': 0, ':one': 1, ':limit': MAX_WEBHOOK_ENDPOINTS, ...envelope.values },
          },
        },
        onConditionFailed: endpointLimitReached,
      },
    ];
  }

  replaceWrites(organizationId: string, stored: StoredEndpoint): StoreWrite[] {
    return [
      {
        item: {
          Update: {
            TableName: this.tableName,
            Key: webhookEndpointEntity.key({ organizationId, endpointId: stored.endpoint.id }),
            // The run of failures is the delivery worker's: kept unless the command ended it.
            UpdateExpression: `SET #endpoint = :endpoint, #secrets = :secrets${stored.failingSince === null ? ' REMOVE #failingSince' : ''}`,
            ConditionExpression: 'attribute_exists(pk)',
            ExpressionAttributeNames: { '#endpoint': 'endpoint', '#secrets': 'secrets', ...(stored.failingSince === null ? { '#failingSince': 'failingSince' } : {}) },
            ExpressionAttributeValues: { ':endpoint': stored.endpoint, ':secrets': stored.secrets },
          },
        },
        onConditionFailed: webhookEndpointNotFound,
      },
    ];
  }

  deleteWrites(organizationId: string, endpointId: string): StoreWrite[] {
    return [
      { item: { Delete: { TableName: this.tableName, Key: webhookEndpointEntity.key({ organizationId, endpointId }), ConditionExpression: 'attribute_exists(pk)' } }, onConditionFailed: webhookEndpointNotFound },
      {
        item: {
          Update: {
            TableName: this.tableName,
            Key: webhookEndpointCountEntity.key({ organizationId }),
            UpdateExpression: 'SET #count = #count - :one',
            ConditionExpression: '#count > :zero',
            ExpressionAttributeNames: { '#count': 'count' },
            ExpressionAttributeValues: { ':one': 1, ':zero': 0 },
          },
        },
      },
    ];
  }

  async markFailing(organizationId: string, endpointId: string, now: Date): Promise<string> {
    try {
      const { Attributes } = await documentClient.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: webhookEndpointEntity.key({ organizationId, endpointId }),
          UpdateExpression: 'SET #failingSince = if_not_exists(#failingSince, :now)',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#failingSince': 'failingSince' },
          ExpressionAttributeValues: { ':now': now.toISOString() },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return (Attributes?.failingSince as string | undefined) ?? now.toISOString();
    } catch (error) {
      // Deleted meanwhile: nothing to count against.
      if (error instanceof ConditionalCheckFailedException) return now.toISOString();
      throw error;
    }
  }

  async clearFailing(organizationId: string, endpointId: string): Promise<void> {
    await documentClient.send(
      new UpdateCommand({ TableName: this.tableName, Key: webhookEndpointEntity.key({ organizationId, endpointId }), UpdateExpression: 'REMOVE #failingSince', ConditionExpression: 'attribute_exists(pk)', ExpressionAttributeNames: { '#failingSince': 'failingSince' } }),
    ).catch((error: unknown) => {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    });
  }

  async disable(organizationId: string, endpointId: string, reason: DisabledReason, audit: AuditEvent, now: Date): Promise<boolean> {
    if (!this.auditTableName) throw new Error('Disabling an endpoint needs the audit table');
    try {
      await documentClient.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: this.tableName,
                Key: webhookEndpointEntity.key({ organizationId, endpointId }),
                UpdateExpression: 'SET #endpoint.#status = :disabled, #endpoint.#reason = :reason, #endpoint.#updatedAt = :now',
                ConditionExpression: 'attribute_exists(pk) AND #endpoint.#status = :enabled',
                ExpressionAttributeNames: { '#endpoint': 'endpoint', '#status': 'status', '#reason': 'disabledReason', '#updatedAt': 'updatedAt' },
                ExpressionAttributeValues: { ':disabled': 'disabled', ':enabled': 'enabled', ':reason': reason, ':now': now.toISOString() },
              },
            },
            auditPut(this.auditTableName, organizationId, audit),
          ],
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof TransactionCanceledException && (error.CancellationReasons ?? [])[0]?.Code === 'ConditionalCheckFailed') return false;
      throw error;
    }
  }

  private item(stored: StoredEndpoint): Item {
    const { organizationId, endpoint } = stored;
    return entityItem(webhookEndpointEntity, { organizationId, endpointId: endpoint.id }, {
      organizationId,
      endpoint,
      secrets: stored.secrets,
      createdAfterSequence: stored.createdAfterSequence,
      ...(stored.failingSince === null ? {} : { failingSince: stored.failingSince }),
    });
  }
}

/** Replays (docs/webhooks.md "Replaying"): the request's record and its worker's position. */
export class WebhookReplaysStore implements ReplayStorage<StoreWrite> {
  constructor(private readonly tableName: string) {}

  createWrites(replay: Replay): StoreWrite[] {
    const ttl = Math.floor(Date.parse(replay.createdAt) / 1000) + 30 * 86_400;
    return [{ item: { Put: { TableName: this.tableName, Item: entityItem(webhookReplayEntity, { organizationId: replay.organizationId, replayId: replay.id }, { replay, ttl }), ConditionExpression: 'attribute_not_exists(pk)' } } }];
  }

  async get(organizationId: string, replayId: string): Promise<Replay | undefined> {
    const { Item } = await documentClient.send(new GetCommand({ TableName: this.tableName, Key: webhookReplayEntity.key({ organizationId, replayId }), ConsistentRead: true }));
    return Item?.replay as Replay | undefined;
  }

  async advance(replay: Replay, nextSequence: number, done: boolean): Promise<boolean> {
    try {
      await documentClient.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: webhookReplayEntity.key({ organizationId: replay.organizationId, replayId: replay.id }),
          UpdateExpression: 'SET #replay.#next = :next, #replay.#status = :status',
          ConditionExpression: '#replay.#next = :read AND #replay.#status = :running',
          ExpressionAttributeNames: { '#replay': 'replay', '#next': 'nextSequence', '#status': 'status' },
          ExpressionAttributeValues: { ':next': nextSequence, ':status': done ? 'done' : 'running', ':read': replay.nextSequence, ':running': 'running' },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }
}
