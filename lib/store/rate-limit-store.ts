import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { RateLimitCounter, RateLimitPolicyName } from '../domain/rate-limit/fixed-window.ts';
import { documentClient } from './dynamodb-client.ts';
import { envelopeAssignments } from './entity.ts';
import { rateLimitCounterEntity } from './entities.ts';

/**
 * The rate-limits table: one counter item per API key, policy and fixed window, incremented
 * atomically in one round trip (`ADD` creates the item on the first request of the window) and
 * deleted by DynamoDB TTL after the window is over. Keys are spread over one partition per key
 * and window, so no partition is hot beyond one key's own traffic.
 */

export const rateLimitCounterKey = (keyId: string, policy: RateLimitPolicyName, windowStartEpochSeconds: number) =>
  rateLimitCounterEntity.key({ keyId, policy, windowStartEpochSeconds }).pk;

export class RateLimitStore implements RateLimitCounter {
  constructor(private readonly tableName: string) {}

  async increment(keyId: string, policy: RateLimitPolicyName, windowStartEpochSeconds: number, expiresAtEpochSeconds: number): Promise<number> {
    const envelope = envelopeAssignments(rateLimitCounterEntity);
    const result = await documentClient.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { pk: rateLimitCounterKey(keyId, policy, windowStartEpochSeconds) },
        UpdateExpression: `ADD #count :one SET #ttl = :ttl, ${envelope.assignments}`,
        ExpressionAttributeNames: { '#count': 'count', '#ttl': 'ttl', ...envelope.names },
        ExpressionAttributeValues: { ':one': 1, ':ttl': expiresAtEpochSeconds, ...envelope.values },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    const count = result.Attributes?.count;
    if (typeof count !== 'number') throw new Error(`Rate-limit counter update returned no count (${typeof count})`);
    return count;
  }
}
