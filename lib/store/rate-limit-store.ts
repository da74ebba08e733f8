import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { RateLimitCounter, RateLimitPolicyName } from '../domain/rate-limit/fixed-window.ts';
import { documentClient } from './dynamodb-client.ts';
import { envelopeAssignments } from './entity.ts';
import { rateLimitCounterEntity } from './entities.ts';

/**
 * The rate-limits table: one counter item per API key and fixed window, with one count attribute
 * per policy (`general`, `submission`), incremented atomically in one round trip (`ADD` creates
 * the item on the first request of the window) and deleted by DynamoDB TTL after the window is
 * over. Keys are spread over one partition per key and window, so no partition is hot beyond one
 * key's own traffic.
 */

export const rateLimitCounterKey = (keyId: string, windowSeconds: number, windowStartEpochSeconds: number) =>
  rateLimitCounterEntity.key({ keyId, windowSeconds, windowStartEpochSeconds }).pk;

export class RateLimitStore implements RateLimitCounter {
  constructor(private readonly tableName: string) {}

  async increment(
    keyId: string,
    window: { windowSeconds: number; windowStartEpochSeconds: number; expiresAtEpochSeconds: number },
    policies: readonly RateLimitPolicyName[],
  ): Promise<Record<RateLimitPolicyName, number | undefined>> {
    const envelope = envelopeAssignments(rateLimitCounterEntity);
    const names = Object.fromEntries(policies.map((policy, index) => [`#p${index}`, policy]));
    const result = await documentClient.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { pk: rateLimitCounterKey(keyId, window.windowSeconds, window.windowStartEpochSeconds) },
        UpdateExpression: `ADD ${Object.keys(names).map((name) => `${name} :one`).join(', ')} SET #ttl = :ttl, ${envelope.assignments}`,
        ExpressionAttributeNames: { ...names, '#ttl': 'ttl', ...envelope.names },
        ExpressionAttributeValues: { ':one': 1, ':ttl': window.expiresAtEpochSeconds, ...envelope.values },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    const counts: Record<RateLimitPolicyName, number | undefined> = { general: undefined, submission: undefined };
    for (const policy of policies) {
      const count = result.Attributes?.[policy];
      if (typeof count !== 'number') throw new Error(`Rate-limit counter update returned no ${policy} count (${typeof count})`);
      counts[policy] = count;
    }
    return counts;
  }
}
