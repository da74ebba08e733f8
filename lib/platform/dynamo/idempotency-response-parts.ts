import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { IDEMPOTENCY_RETENTION_SECONDS, type StoredResponse } from '../write/idempotency.ts';
import { documentClient } from '../aws/dynamodb-client.ts';
import { entityItem } from './entity.ts';
import { idempotencyEntity, idempotencyResponsePartEntity } from './entities.ts';
import { IdempotencyStore, type Claim } from './idempotency-store.ts';
import type { TransactItem } from './transaction-items.ts';

/**
 * Idempotency records of the routes whose response may outgrow one DynamoDB item (400 KB): BOM
 * create and update, whose answer is the whole BOM, up to about 850 KB as stored for 500 lines
 * (test/unit/boms/bom-worst-case-size.test.ts). A response whose stored text is larger than
 * `RESPONSE_PART_BYTES` is kept as its UTF-8 bytes in parts of that size, each its own item
 * written in the same transaction as the completion, so a response is stored whole or not at all;
 * the record says how many parts there are. A replay reads them back, one GetItem each, at once.
 * Smaller responses stay in the record as with every other route.
 */

/** The most bytes of a response one item holds: a part, with its key and envelope, stays far below 400 KB. */
export const RESPONSE_PART_BYTES = 300_000;

const epochSeconds = (date: Date) => Math.floor(date.getTime() / 1000);

export class PartedResponseIdempotencyStore extends IdempotencyStore {
  override async completionItems(claim: Claim, response: StoredResponse, now: Date): Promise<TransactItem[]> {
    const parts = responseParts(response);
    if (!parts) return super.completionItems(claim, response, now);
    // Kept as long as the record: its TTL counts from the claim, a little earlier than now.
    const ttl = epochSeconds(now) + IDEMPOTENCY_RETENTION_SECONDS + 3600;
    const record = idempotencyEntity.key({ organizationId: claim.organizationId, keyHash: claim.keyHash });
    return [
      {
        // IdempotencyStore's completion, with the number of parts in place of the response.
        Update: {
          TableName: this.tableName,
          Key: record,
          UpdateExpression: 'SET #status = :completed, responseParts = :parts, completedAt = :now REMOVE leaseExpiresAt',
          ConditionExpression: '#token = :token AND #status = :inProgress',
          ExpressionAttributeNames: { '#status': 'status', '#token': 'token' },
          ExpressionAttributeValues: {
            ':completed': 'completed',
            ':parts': parts.length,
            ':now': now.toISOString(),
            ':token': claim.token,
            ':inProgress': 'in-progress',
          },
        },
      },
      // Unconditional: a part left by an expired record of the same key is overwritten.
      ...parts.map((part, index) => ({
        Put: {
          TableName: this.tableName,
          Item: entityItem(
            idempotencyResponsePartEntity,
            { organizationId: claim.organizationId, keyHash: claim.keyHash, index },
            { part, token: claim.token, ttl },
          ),
        },
      })),
    ];
  }

  override async complete(claim: Claim, response: StoredResponse, now: Date): Promise<void> {
    if (!responseParts(response)) return super.complete(claim, response, now);
    try {
      await documentClient.send(new TransactWriteCommand({ TransactItems: await this.completionItems(claim, response, now) }));
    } catch (error) {
      // The claim was lost (its update's condition failed): the outcome is the other request's.
      const lost = error instanceof TransactionCanceledException && error.CancellationReasons?.[0]?.Code === 'ConditionalCheckFailed';
      if (!lost) throw error;
    }
  }

  override async openResponse(organizationId: string, keyHash: string, item: Record<string, unknown>): Promise<StoredResponse> {
    // A record whose response is in parts holds `responseParts` in place of `response`.
    if (typeof item.responseParts !== 'number') return super.openResponse(organizationId, keyHash, item);
    return JSON.parse(await this.partsText(organizationId, keyHash, item.responseParts, String(item.token))) as StoredResponse;
  }

  /** The response text from its parts, read at once. */
  private async partsText(organizationId: string, keyHash: string, count: number, token: string): Promise<string> {
    const parts = await Promise.all(
      Array.from({ length: count }, async (_, index) => {
        const { Item } = await documentClient.send(
          new GetCommand({ TableName: this.tableName, Key: idempotencyResponsePartEntity.key({ organizationId, keyHash, index }), ConsistentRead: true }),
        );
        // Written with the record's completion, so with its token: any other part is not this response's.
        if (!(Item?.part instanceof Uint8Array) || Item.token !== token)
          throw new Error(`Idempotency response part ${index} of ${count} is missing or not the record's`);
        return Item.part;
      }),
    );
    return Buffer.concat(parts).toString('utf8');
  }
}

/** The stored text's UTF-8 bytes in parts, when they are more than one part holds; undefined otherwise (and for a sealed response, which is small). */
function responseParts(response: StoredResponse): Uint8Array[] | undefined {
  if (response.confidential) return undefined;
  const { confidential: _confidential, ...stored } = response;
  // The same text the record would hold (IdempotencyStore.completionItems).
  const bytes = Buffer.from(JSON.stringify(stored), 'utf8');
  if (bytes.byteLength <= RESPONSE_PART_BYTES) return undefined;
  const parts: Uint8Array[] = [];
  for (let start = 0; start < bytes.byteLength; start += RESPONSE_PART_BYTES) parts.push(bytes.subarray(start, start + RESPONSE_PART_BYTES));
  return parts;
}
