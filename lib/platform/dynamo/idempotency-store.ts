import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { decideOnExisting, IDEMPOTENCY_RETENTION_SECONDS, type IdempotencyRecord, type StoredResponse } from '../write/idempotency.ts';
import type { ApiError } from '../core/errors.ts';
import type { SecretBox } from '../core/secret-box.ts';
import { documentClient } from '../aws/dynamodb-client.ts';
import { entityItem } from './entity.ts';
import { idempotencyEntity } from './entities.ts';
import type { TransactItem } from './transaction-items.ts';
import type { IdempotencyClaim, IdempotencyRecords } from '../write/ports.ts';

/**
 * Idempotency records: a conditional put claims the key (`in-progress`, with a lease) before the
 * command runs; the command's own transaction completes it with the response. A crash before
 * commit leaves a claim whose lease expires, so a retry runs the command exactly once.
 * A confidential response (one that shows a webhook signing secret) is stored sealed, the way the
 * secret itself is (docs/webhooks.md "Secrets"), and opened only to be replayed.
 */

export type Claim = IdempotencyClaim;

/** A record as read, before its response is opened (which may need the secret box, or more reads). */
type UnopenedRecord = IdempotencyRecord<() => Promise<StoredResponse>>;

export type ClaimOutcome = { kind: 'claimed'; claim: Claim } | { kind: 'replay'; response: StoredResponse } | { kind: 'rejected'; error: ApiError };

/** What a sealed response is bound to: its organization and key, so it answers no other request. */
const sealedResponseContext = (organizationId: string, keyHash: string) => JSON.stringify(['idempotency-response', organizationId, keyHash]);

const epochSeconds = (date: Date) => Math.floor(date.getTime() / 1000);
const MAX_CLAIM_ATTEMPTS = 3;

export class IdempotencyStore implements IdempotencyRecords {
  constructor(
    protected readonly tableName: string,
    private readonly leaseSeconds: number,
    /** Seals confidential responses: given only to the functions that answer with a secret (lib/app/composition-writes.ts). */
    private readonly responseBox?: () => SecretBox,
  ) {}

  async claim(organizationId: string, keyHash: string, fingerprint: string, now: Date): Promise<ClaimOutcome> {
    const identity = { organizationId, keyHash };
    for (let attempt = 1; attempt <= MAX_CLAIM_ATTEMPTS; attempt += 1) {
      const token = randomUUID();
      try {
        await documentClient.send(
          new PutCommand({
            TableName: this.tableName,
            Item: entityItem(idempotencyEntity, identity, {
              status: 'in-progress',
              fingerprint,
              token,
              createdAt: now.toISOString(),
              leaseExpiresAt: new Date(now.getTime() + this.leaseSeconds * 1000).toISOString(),
              // TTL only tidies up; expiry itself is decided from createdAt.
              ttl: epochSeconds(now) + IDEMPOTENCY_RETENTION_SECONDS + 3600,
            }),
            ConditionExpression:
              'attribute_not_exists(pk) OR createdAt <= :expiredBefore OR (#status = :inProgress AND leaseExpiresAt <= :now AND fingerprint = :fingerprint)',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: {
              ':expiredBefore': new Date(now.getTime() - IDEMPOTENCY_RETENTION_SECONDS * 1000).toISOString(),
              ':inProgress': 'in-progress',
              ':now': now.toISOString(),
              ':fingerprint': fingerprint,
            },
          }),
        );
        return { kind: 'claimed', claim: { organizationId, keyHash, token } };
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
      const existing = await this.readUnopened(organizationId, keyHash);
      if (!existing) continue;
      // Decided before the response is opened: a key first used on a route that seals its
      // responses and reused here is a 409, though this function may hold no box to open it.
      const decision = decideOnExisting(existing, fingerprint, now);
      if (decision.action === 'replay') return { kind: 'replay', response: await decision.response() };
      if (decision.action === 'reject') return { kind: 'rejected', error: decision.error };
    }
    throw new Error('Could not claim the idempotency key after several attempts');
  }

  async read(organizationId: string, keyHash: string): Promise<IdempotencyRecord | undefined> {
    const record = await this.readUnopened(organizationId, keyHash);
    if (record?.status !== 'completed') return record;
    return { ...record, response: await record.response() };
  }

  /** The key's record, its response not read yet: `response()` opens it. */
  protected async readUnopened(organizationId: string, keyHash: string): Promise<UnopenedRecord | undefined> {
    const result = await documentClient.send(
      new GetCommand({ TableName: this.tableName, Key: idempotencyEntity.key({ organizationId, keyHash }), ConsistentRead: true }),
    );
    const item = result.Item;
    if (!item) return undefined;
    if (item.status !== 'completed') return item as UnopenedRecord;
    const { sealedResponse: _sealed, response: _response, ...rest } = item;
    return { ...rest, response: () => this.openResponse(organizationId, keyHash, item) } as UnopenedRecord;
  }

  /** The response a completed record's item holds: as text, or sealed (only a store given the box opens it). */
  protected async openResponse(organizationId: string, keyHash: string, item: Record<string, unknown>): Promise<StoredResponse> {
    if (typeof item.sealedResponse === 'string')
      return JSON.parse(await this.box().open(item.sealedResponse, sealedResponseContext(organizationId, keyHash))) as StoredResponse;
    if (typeof item.response === 'string') return JSON.parse(item.response) as StoredResponse;
    throw new Error('A completed idempotency record holds no response');
  }

  /**
   * The transaction items that complete a claim: the record's update, which fails if the claim
   * was lost (and, in a store that keeps large responses in parts, the parts).
   */
  async completionItems(claim: Claim, response: StoredResponse, now: Date): Promise<TransactItem[]> {
    const { confidential, ...stored } = response;
    // Stored as JSON text: byte-exact, and an empty body (204) is not an empty attribute.
    const text = JSON.stringify(stored);
    const attribute = confidential
      ? { name: 'sealedResponse', value: await this.box().seal(text, sealedResponseContext(claim.organizationId, claim.keyHash)) }
      : { name: 'response', value: text };
    return [
      {
        Update: {
          TableName: this.tableName,
          Key: idempotencyEntity.key({ organizationId: claim.organizationId, keyHash: claim.keyHash }),
          UpdateExpression: 'SET #status = :completed, #response = :response, completedAt = :now REMOVE leaseExpiresAt',
          ConditionExpression: '#token = :token AND #status = :inProgress',
          ExpressionAttributeNames: { '#status': 'status', '#response': attribute.name, '#token': 'token' },
          ExpressionAttributeValues: {
            ':completed': 'completed',
            ':response': attribute.value,
            ':now': now.toISOString(),
            ':token': claim.token,
            ':inProgress': 'in-progress',
          },
        },
      },
    ];
  }

  /** Stores the outcome of a request that failed without writing (e.g. a 404 from the command). */
  async complete(claim: Claim, response: StoredResponse, now: Date): Promise<void> {
    const [{ Update } = {}] = await this.completionItems(claim, response, now);
    if (!Update) return;
    await documentClient.send(new UpdateCommand(Update)).catch((error: unknown) => {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    });
  }

  /** Gives the key back after an unexpected failure, so a retry runs the command. */
  async release(claim: Claim): Promise<void> {
    await documentClient
      .send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: idempotencyEntity.key({ organizationId: claim.organizationId, keyHash: claim.keyHash }),
          ConditionExpression: '#token = :token AND #status = :inProgress',
          ExpressionAttributeNames: { '#status': 'status', '#token': 'token' },
          ExpressionAttributeValues: { ':token': claim.token, ':inProgress': 'in-progress' },
        }),
      )
      .catch((error: unknown) => {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      });
  }

  private box(): SecretBox {
    if (!this.responseBox) throw new Error('A confidential response needs the secret box (lib/app/composition-writes.ts)');
    return this.responseBox();
  }
}
