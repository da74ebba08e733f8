import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hashIdempotencyKey, type StoredResponse } from '../../lib/platform/write/idempotency.ts';
import { documentClient } from '../../lib/platform/aws/dynamodb-client.ts';
import { idempotencyResponsePartEntity } from '../../lib/platform/dynamo/entities.ts';
import { PartedResponseIdempotencyStore, RESPONSE_PART_BYTES } from '../../lib/platform/dynamo/idempotency-response-parts.ts';
import { tableName } from '../support/events.ts';

/**
 * Idempotency records whose response is too large for one item (lib/platform/dynamo/idempotency-response-parts.ts)
 * on DynamoDB Local: the response is stored in parts in the completing transaction and a replay
 * gets it back byte for byte, characters of every UTF-8 length cut anywhere included; a small one
 * stays in the record.
 */

const store = () => new PartedResponseIdempotencyStore(tableName('idempotency'), 30);
const organizationId = () => `org_${randomUUID().slice(0, 8)}`;

/** Characters of 1 to 4 UTF-8 bytes, and three that JSON escapes: parts are cut inside characters and escapes. */
const MIXED = 'a\u00e9\u6f22\u{1f600}"\\\u0001';
/** What MIXED takes in the stored text: its body escapes, escaped again in the record's JSON. */
const MIXED_STORED_BYTES = Buffer.byteLength(JSON.stringify(JSON.stringify(MIXED))) - 6;

/** A 201 whose stored text is about `bytes` long. */
function responseOf(bytes: number): StoredResponse {
  return {
    statusCode: 201,
    headers: { 'Content-Type': 'application/json; charset=utf-8', ETag: '"1.1"' },
    body: JSON.stringify({ text: MIXED.repeat(Math.floor(bytes / MIXED_STORED_BYTES)) }),
  };
}

/** Claims a fresh key, completes it with `response` in one transaction (as the writer does), and claims it again. */
async function completeAndReplay(response: StoredResponse) {
  const records = store();
  const org = organizationId();
  const keyHash = hashIdempotencyKey(randomUUID());
  const claimed = await records.claim(org, keyHash, 'fingerprint', new Date());
  if (claimed.kind !== 'claimed') throw new Error(`expected a claim, got ${claimed.kind}`);
  const items = await records.completionItems(claimed.claim, response, new Date());
  await documentClient.send(new TransactWriteCommand({ TransactItems: items }));
  const replayed = await records.claim(org, keyHash, 'fingerprint', new Date());
  return { items, replayed, org, keyHash };
}

describe('idempotency responses in parts', () => {
  it(`stores a response of about 850 KB in parts of at most ${RESPONSE_PART_BYTES} bytes, and replays it byte for byte`, async () => {
    // Prepare
    const response = responseOf(850_000);

    // Act
    const { items, replayed, org, keyHash } = await completeAndReplay(response);
    const { Item: part } = await documentClient.send(
      new GetCommand({ TableName: tableName('idempotency'), Key: idempotencyResponsePartEntity.key({ organizationId: org, keyHash, index: 0 }) }),
    );

    // Assess: the record's update and 3 parts
    expect(items.map((item) => Object.keys(item)[0])).toEqual(['Update', 'Put', 'Put', 'Put']);
    expect(replayed).toEqual({ kind: 'replay', response: { statusCode: 201, headers: response.headers, body: response.body } });
    expect((part?.part as Uint8Array).byteLength).toBe(RESPONSE_PART_BYTES);
  });

  it('keeps a response that fits one part in the record, as every other route does', async () => {
    // Prepare
    const response = responseOf(RESPONSE_PART_BYTES - 10_000);

    // Act
    const { items, replayed } = await completeAndReplay(response);

    // Assess
    expect(items.map((item) => Object.keys(item)[0])).toEqual(['Update']);
    expect(replayed).toEqual({ kind: 'replay', response: { statusCode: 201, headers: response.headers, body: response.body } });
  });

  it('completes a large outcome outside a command too (complete), and not over a lost claim', async () => {
    // Prepare
    const records = store();
    const org = organizationId();
    const keyHash = hashIdempotencyKey(randomUUID());
    const claimed = await records.claim(org, keyHash, 'fingerprint', new Date());
    if (claimed.kind !== 'claimed') throw new Error(`expected a claim, got ${claimed.kind}`);
    const response = responseOf(400_000);

    // Act
    await records.complete(claimed.claim, response, new Date());
    await records.complete({ ...claimed.claim, token: 'lost' }, responseOf(500_000), new Date());
    const replayed = await records.claim(org, keyHash, 'fingerprint', new Date());

    // Assess
    expect(replayed).toEqual({ kind: 'replay', response: { statusCode: 201, headers: response.headers, body: response.body } });
  });
});
