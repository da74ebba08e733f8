import type { ApiKeyRecord } from '../auth/api-key.ts';
import { ApiKeyLookupStore, toRecord } from './api-key-lookup-store.ts';
import { entityItem, readAll } from './entity.ts';
import { apiKeyEntity, apiKeyPointerEntity } from './entities.ts';
import { keys } from './keys.ts';
import type { StoreWrite, TransactionWriter } from './transaction-writer.ts';

/**
 * The keys table. The main item is addressed by the key's SHA-256 (what auth looks up); a
 * pointer item addressed by key id lets `revoke <keyId>` find it; gsi1 lists an organization's
 * keys in creation order.
 */

export class ApiKeysStore extends ApiKeyLookupStore {
  /** Lookups need only the table; creating and revoking also write the audit log. */
  constructor(
    tableName: string,
    private readonly writer?: TransactionWriter,
  ) {
    super(tableName);
  }

  async create(record: ApiKeyRecord): Promise<void> {
    const writes: StoreWrite[] = [
      {
        item: {
          Put: {
            TableName: this.tableName,
            Item: entityItem(apiKeyEntity, record, { ...record }),
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
      },
      {
        item: {
          Put: {
            TableName: this.tableName,
            Item: entityItem(apiKeyPointerEntity, record, { keyHash: record.keyHash }),
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
      },
    ];
    await this.requireWriter().run(this.context(record.organizationId), async () => ({
      writes,
      audit: {
        kind: 'api-key.created',
        target: { kind: 'api-key', id: record.keyId },
        summary: `API key '${record.name}' created with scopes ${record.scopes.join(', ')}`,
        changes: [],
      },
      events: [],
      result: undefined,
    }));
  }

  async listByOrganization(organizationId: string): Promise<ApiKeyRecord[]> {
    // Index sort keys start with the creation time: every ISO 8601 timestamp of this era is within.
    const items = await readAll({
      tableName: this.tableName,
      indexName: 'gsi1',
      partition: { name: 'gsi1pk', value: keys.apiKeysOfOrganization(organizationId) },
      sortKey: { name: 'gsi1sk', lower: '0', upper: '9' },
    });
    return items.map(toRecord);
  }

  /** Marks the key revoked; returns the updated record, or undefined for an unknown id. */
  async revoke(keyId: string, revokedAt: string): Promise<ApiKeyRecord | undefined> {
    const existing = await this.findById(keyId);
    if (!existing) return undefined;
    if (existing.revokedAt !== null) return existing;
    const write: StoreWrite = {
      item: {
        Update: {
          TableName: this.tableName,
          Key: apiKeyEntity.key(existing),
          UpdateExpression: 'SET revokedAt = :revokedAt',
          ConditionExpression: 'attribute_exists(pk) AND attribute_type(revokedAt, :null)',
          ExpressionAttributeValues: { ':revokedAt': revokedAt, ':null': 'NULL' },
        },
      },
    };
    await this.requireWriter().run(this.context(existing.organizationId), async () => ({
      writes: [write],
      audit: {
        kind: 'api-key.revoked',
        target: { kind: 'api-key', id: keyId },
        summary: `API key '${existing.name}' revoked`,
        changes: [{ field: 'revokedAt', from: null, to: revokedAt }],
      },
      events: [],
      result: undefined,
    }));
    return { ...existing, revokedAt };
  }

  private requireWriter(): TransactionWriter {
    if (!this.writer) throw new Error('Key management needs a TransactionWriter (for the audit log)');
    return this.writer;
  }

  private context(organizationId: string) {
    return { organizationId, actor: { type: 'system' as const, id: 'keys-cli' }, traceId: null };
  }
}
