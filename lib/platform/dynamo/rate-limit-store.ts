import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AuthFailureCounter, CounterWindow } from '../rate-limit/auth-failures.ts';
import type { RateLimitCounter, RateLimitPolicyName, TokenAdd } from '../rate-limit/fixed-window.ts';
import { documentClient } from '../aws/dynamodb-client.ts';
import { envelopeAssignments } from './entity.ts';
import { rateLimitCounterEntity } from './entities.ts';

/**
 * The rate-limits table: one counter item per API key and fixed window, with one count attribute
 * per policy (`general`, `submission`) of the tokens leased in the window (lib/platform/rate-limit/
 * token-leases.ts), added in one conditional round trip (`ADD` creates the item on the window's
 * first lease) and deleted by DynamoDB TTL after the window is over. Keys are spread over one partition per key and window, so no partition is hot beyond one
 * key's own traffic.
 *
 * Failed authentications (docs/api-guide.md "Failed authentications") are counted the same way,
 * per source IP address: the counter item of `source#<ip>` with one `auth-failures` count.
 */

export const rateLimitCounterKey = (keyId: string, windowSeconds: number, windowStartEpochSeconds: number) =>
  rateLimitCounterEntity.key({ keyId, windowSeconds, windowStartEpochSeconds }).pk;

/** The counter id of a source address's failed authentications (API key ids never contain `#`). */
export const authFailureCounterId = (source: string) => `source#${source}`;
export const AUTH_FAILURE_COUNT = 'auth-failures';

export class RateLimitStore implements RateLimitCounter, AuthFailureCounter {
  constructor(private readonly tableName: string) {}

  async addWithinLimits(
    keyId: string,
    window: CounterWindow,
    adds: readonly TokenAdd[],
  ): Promise<{ applied: boolean; counts: Partial<Record<RateLimitPolicyName, number>> }> {
    // No arithmetic in a condition expression: `count + tokens <= limit` is sent as `count <= limit - tokens`.
    const condition = adds.map((_add, index) => `(attribute_not_exists(#p${index}) OR #p${index} <= :max${index})`).join(' AND ');
    const maxima = Object.fromEntries(adds.map((add, index) => [`:max${index}`, add.limit - add.tokens]));
    try {
      const counts = await this.add(keyId, window, adds, { expression: condition, values: maxima });
      return { applied: true, counts };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      // ALL_OLD on a failed condition: the counts the condition saw, raw attribute values (`{ N: '17' }`).
      const counts: Partial<Record<RateLimitPolicyName, number>> = {};
      for (const { policy } of adds) {
        const stored = error.Item?.[policy]?.N;
        if (stored !== undefined) counts[policy] = Number(stored);
      }
      return { applied: false, counts };
    }
  }

  async countAuthFailure(source: string, window: CounterWindow): Promise<number> {
    const result = await this.add(authFailureCounterId(source), window, [{ policy: AUTH_FAILURE_COUNT, tokens: 1 }]);
    return result[AUTH_FAILURE_COUNT] as number;
  }

  /** Adds the tokens to each named count of the counter item in one UpdateItem (under `condition`, if any); the new counts. */
  private async add(
    counterId: string,
    window: CounterWindow,
    adds: ReadonlyArray<{ policy: string; tokens: number }>,
    condition?: { expression: string; values: Record<string, number> },
  ): Promise<Record<string, number>> {
    const envelope = envelopeAssignments(rateLimitCounterEntity);
    const names = Object.fromEntries(adds.map(({ policy }, index) => [`#p${index}`, policy]));
    const tokens = Object.fromEntries(adds.map((add, index) => [`:t${index}`, add.tokens]));
    const result = await documentClient.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { pk: rateLimitCounterKey(counterId, window.windowSeconds, window.windowStartEpochSeconds) },
        UpdateExpression: `ADD ${adds.map((_add, index) => `#p${index} :t${index}`).join(', ')} SET #ttl = :ttl, ${envelope.assignments}`,
        ...(condition ? { ConditionExpression: condition.expression, ReturnValuesOnConditionCheckFailure: 'ALL_OLD' as const } : {}),
        ExpressionAttributeNames: { ...names, '#ttl': 'ttl', ...envelope.names },
        ExpressionAttributeValues: { ...tokens, ...condition?.values, ':ttl': window.expiresAtEpochSeconds, ...envelope.values },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    const counts: Record<string, number> = {};
    for (const { policy } of adds) {
      const count = result.Attributes?.[policy];
      if (typeof count !== 'number') throw new Error(`Rate-limit counter update returned no ${policy} count (${typeof count})`);
      counts[policy] = count;
    }
    return counts;
  }
}
