import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import type { AuditEvent } from '../../platform/audit/types.ts';
import { ApiError } from '../../platform/core/errors.ts';
import type { PageOf } from '../../platform/pagination/page.ts';
import {
  endpointLimitReached,
  MAX_WEBHOOK_ENDPOINTS,
  webhookEndpointNotFound,
  type DisabledReason,
  type StoredEndpoint,
  type WebhookEndpoint,
} from '../domain/endpoint.ts';
import type { EndpointStorage } from '../domain/ports.ts';
import { auditPut } from '../../platform/dynamo/audit-items.ts';
import { documentClient } from '../../platform/aws/dynamodb-client.ts';
import { entityItem, envelopeAssignments, readAll, readPage, sortKeyRange } from '../../platform/dynamo/entity.ts';
import { WEBHOOK_ENDPOINT_PREFIX, webhookEndpointCountEntity, webhookEndpointEntity, webhookEndpointsOf } from './entities.ts';
import type { StoreWrite } from '../../platform/dynamo/transaction-writer.ts';

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
    version: (item.version as number | undefined) ?? 0,
  };
}

const endpointChangedConcurrently = () =>
  new ApiError(409, 'customer-api.request.conflict', 'Conflict', { detail: 'The webhook endpoint changed concurrently; read it again and retry the request.' });

/** The condition on the version a write read: an item from before versions has none (version 0). */
function versionCondition(read: number): { expression: string; values: Record<string, number> } {
  return read === 0
    ? { expression: 'attribute_not_exists(#version)', values: {} }
    : { expression: '#version = :readVersion', values: { ':readVersion': read } };
}

/** How often the worker's disable re-reads after losing to another write before giving up. */
const DISABLE_ATTEMPTS = 5;

export class WebhookEndpointsStore implements EndpointStorage<StoreWrite> {
  constructor(
    private readonly tableName: string,
    private readonly auditTableName?: string,
  ) {}

  async get(organizationId: string, endpointId: string): Promise<StoredEndpoint | undefined> {
    const { Item } = await documentClient.send(
      new GetCommand({ TableName: this.tableName, Key: webhookEndpointEntity.key({ organizationId, endpointId }), ConsistentRead: true }),
    );
    return Item ? toStored(Item) : undefined;
  }

  async all(organizationId: string): Promise<StoredEndpoint[]> {
    const items = await readAll({
      tableName: this.tableName,
      partition: { name: 'pk', value: webhookEndpointsOf(organizationId) },
      sortKey: { name: 'sk', ...sortKeyRange(WEBHOOK_ENDPOINT_PREFIX) },
    });
    return items.map(toStored);
  }

  async page(organizationId: string, after: string | undefined, limit: number): Promise<PageOf<StoredEndpoint>> {
    const page = await readPage({
      tableName: this.tableName,
      partition: { name: 'pk', value: webhookEndpointsOf(organizationId) },
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

  replaceWrites(organizationId: string, stored: StoredEndpoint, options: { endRunOfFailures?: boolean } = {}): StoreWrite[] {
    const key = webhookEndpointEntity.key({ organizationId, endpointId: stored.endpoint.id });
    const read = versionCondition(stored.version);
    return [
      {
        item: {
          Update: {
            TableName: this.tableName,
            Key: key,
            // The run of failures is the delivery worker's: untouched unless the command ends it.
            UpdateExpression: `SET #endpoint = :endpoint, #secrets = :secrets, #version = :nextVersion${options.endRunOfFailures ? ' REMOVE #failingSince' : ''}`,
            ConditionExpression: `attribute_exists(pk) AND ${read.expression}`,
            ExpressionAttributeNames: {
              '#endpoint': 'endpoint',
              '#secrets': 'secrets',
              '#version': 'version',
              ...(options.endRunOfFailures ? { '#failingSince': 'failingSince' } : {}),
            },
            ExpressionAttributeValues: { ':endpoint': stored.endpoint, ':secrets': stored.secrets, ':nextVersion': stored.version + 1, ...read.values },
          },
        },
        // Gone, or written by someone else since it was read (docs/webhooks.md "Concurrent changes").
        onConditionFailed: async () => ((await this.get(organizationId, stored.endpoint.id)) ? endpointChangedConcurrently() : webhookEndpointNotFound()),
      },
    ];
  }

  deleteWrites(organizationId: string, endpointId: string): StoreWrite[] {
    return [
      {
        item: {
          Delete: { TableName: this.tableName, Key: webhookEndpointEntity.key({ organizationId, endpointId }), ConditionExpression: 'attribute_exists(pk)' },
        },
        onConditionFailed: webhookEndpointNotFound,
      },
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
    await documentClient
      .send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: webhookEndpointEntity.key({ organizationId, endpointId }),
          UpdateExpression: 'REMOVE #failingSince',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#failingSince': 'failingSince' },
        }),
      )
      .catch((error: unknown) => {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      });
  }

  async disable(organizationId: string, endpointId: string, reason: DisabledReason, audit: AuditEvent, now: Date): Promise<boolean> {
    if (!this.auditTableName) throw new Error('Disabling an endpoint needs the audit table');
    for (let attempt = 1; attempt <= DISABLE_ATTEMPTS; attempt += 1) {
      const stored = await this.get(organizationId, endpointId);
      if (!stored || stored.endpoint.status !== 'enabled') return false;
      const read = versionCondition(stored.version);
      try {
        await documentClient.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Update: {
                  TableName: this.tableName,
                  Key: webhookEndpointEntity.key({ organizationId, endpointId }),
                  UpdateExpression: 'SET #endpoint.#status = :disabled, #endpoint.#reason = :reason, #endpoint.#updatedAt = :now, #version = :nextVersion',
                  ConditionExpression: `attribute_exists(pk) AND #endpoint.#status = :enabled AND ${read.expression}`,
                  ExpressionAttributeNames: {
                    '#endpoint': 'endpoint',
                    '#status': 'status',
                    '#reason': 'disabledReason',
                    '#updatedAt': 'updatedAt',
                    '#version': 'version',
                  },
                  ExpressionAttributeValues: {
                    ':disabled': 'disabled',
                    ':enabled': 'enabled',
                    ':reason': reason,
                    ':now': now.toISOString(),
                    ':nextVersion': stored.version + 1,
                    ...read.values,
                  },
                },
              },
              auditPut(this.auditTableName, organizationId, audit),
            ],
          }),
        );
        return true;
      } catch (error) {
        const lostToAnotherWrite =
          error instanceof TransactionCanceledException &&
          ['ConditionalCheckFailed', 'TransactionConflict'].includes((error.CancellationReasons ?? [])[0]?.Code ?? '');
        if (!lostToAnotherWrite) throw error;
        // Another write came between the read and this one: read again, disable what is there now.
      }
    }
    throw new Error(`Could not disable webhook endpoint ${endpointId}: it kept changing concurrently`);
  }

  private item(stored: StoredEndpoint): Item {
    const { organizationId, endpoint } = stored;
    return entityItem(
      webhookEndpointEntity,
      { organizationId, endpointId: endpoint.id },
      {
        organizationId,
        endpoint,
        secrets: stored.secrets,
        createdAfterSequence: stored.createdAfterSequence,
        version: stored.version,
        ...(stored.failingSince === null ? {} : { failingSince: stored.failingSince }),
      },
    );
  }
}

/** Replays live in their own module; re-exported for the functions that import them from here. */
export { WebhookReplaysStore } from './webhook-replays-store.ts';
