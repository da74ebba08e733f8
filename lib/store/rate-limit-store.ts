import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AuthFailureCounter, CounterWindow } from '../domain/rate-limit/auth-failures.ts';
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

  async increment(keyId: string, window: CounterWindow, policies: readonly RateLimitPolicyName[]): Promise<Record<RateLimitPolicyName, number | undefined>> {
    const result = await this.add(keyId, window, policies);
    const counts: Record<RateLimitPolicyName, number | undefined> = { general: undefined, submission: undefined };
    for (const policy of policies) counts[policy] = result[policy];
    return counts;
  }

  async countAuthFailure(source: string, window: CounterWindow): Promise<number> {
    const result = await this.add(authFailureCounterId(source), window, [AUTH_FAILURE_COUNT]);
    return result[AUTH_FAILURE_COUNT] as number;
  }

  /** Adds 1 to each named count of the counter item, in one UpdateItem; the new counts. */
  private async add(counterId: string, window: CounterWindow, policies: readonly string[]): Promise<Record<string, number>> {
    const envelope = envelopeAssignments(rateLimitCounterEntity);
    const names = Object.fromEntries(policies.map((policy, index) => [`#p${index}`, policy]));
    const result = await documentClient.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { pk: rateLimitCounterKey(counterId, window.windowSeconds, window.windowStartEpochSeconds) },
        UpdateExpression: `ADD ${Object.keys(names).map((name) => `${name} :one`).join(', ')} SET #ttl = :ttl, ${envelope.assignments}`,
        ExpressionAttributeNames: { ...names, '#ttl': 'ttl', ...envelope.names },
        ExpressionAttributeValues: { ':one': 1, ':ttl': window.expiresAtEpochSeconds, ...envelope.values },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    const counts: Record<string, number> = {};
    for (const policy of policies) {
      const count = result.Attributes?.[policy];
      if (typeof count !== 'number') throw new Error(`Rate-limit counter update returned no ${policy} count (${typeof count})`);
      counts[policy] = count;
    }
    return counts;
  }
}
