import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { ApiKeyRecord } from '../auth/api-key.ts';
import type { Scope } from '../auth/scopes.ts';
import { documentClient } from '../aws/dynamodb-client.ts';
import { apiKeyEntity, apiKeyPointerEntity } from './entities.ts';

/**
 * The keys table as every function's authentication reads it (lib/app/composition.ts): by the key's
 * SHA-256, or by key id through its pointer item. Creating, listing and revoking keys
 * (api-keys-store.ts, which extends this) are the keys CLI's, so no function bundles them.
 */

export function toRecord(item: Record<string, unknown>): ApiKeyRecord {
  const stored = item as unknown as ApiKeyRecord;
  return {
    keyId: stored.keyId,
    keyHash: stored.keyHash,
    organizationId: stored.organizationId,
    name: stored.name,
    scopes: stored.scopes as Scope[],
    createdAt: stored.createdAt,
    revokedAt: stored.revokedAt ?? null,
    expiresAt: stored.expiresAt ?? null,
  };
}

export class ApiKeyLookupStore {
  constructor(protected readonly tableName: string) {}

  async findByHash(keyHash: string): Promise<ApiKeyRecord | undefined> {
    // Strongly consistent so a revocation takes effect on the very next request.
    const result = await documentClient.send(new GetCommand({ TableName: this.tableName, Key: apiKeyEntity.key({ keyHash }), ConsistentRead: true }));
    return result.Item ? toRecord(result.Item) : undefined;
  }

  async findById(keyId: string): Promise<ApiKeyRecord | undefined> {
    const pointer = await documentClient.send(new GetCommand({ TableName: this.tableName, Key: apiKeyPointerEntity.key({ keyId }), ConsistentRead: true }));
    const keyHash = pointer.Item?.keyHash;
    return typeof keyHash === 'string' ? this.findByHash(keyHash) : undefined;
  }
}
