import { randomUUID } from 'node:crypto';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { documentClient } from '../../lib/platform/aws/clients.ts';
import { callApi, createTestKey, uniqueOrganization } from '../support/api.ts';
import { tableName } from '../support/events.ts';

/**
 * The responses that carry a signing secret (create, rotate) are stored sealed with their
 * Idempotency-Key record (docs/webhooks.md "Secrets"): no secret text at rest, and a replay of
 * the request still answers the first response byte for byte.
 */

async function idempotencyItemsText(): Promise<string> {
  const items: unknown[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await documentClient.send(new ScanCommand({ TableName: tableName('idempotency'), ExclusiveStartKey: start, ConsistentRead: true }));
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return JSON.stringify(items);
}

async function twice(path: string, key: string, body?: string): Promise<[Response, Response]> {
  const idempotencyKey = randomUUID();
  const call = () =>
    callApi(path, { method: 'POST', key, headers: { 'idempotency-key': idempotencyKey, ...(body ? { 'content-type': 'application/json' } : {}) }, body });
  const first = await call();
  return [first, await call()];
}

describe('webhook secrets in idempotency records', () => {
  it('create: the record holds no secret, the replay is the first response byte for byte', async () => {
    const { key } = await createTestKey({ organizationId: uniqueOrganization(), scopes: ['all'] });
    const [first, replay] = await twice('/v1/webhooks/endpoints', key, JSON.stringify({ url: 'https://hooks.example.com/idempotent' }));
    expect(first.status).toBe(201);
    const firstBody = await first.text();
    const { secret, id } = JSON.parse(firstBody) as { secret: string; id: string };
    expect(secret).toMatch(/^whsec_/u);
    expect(await idempotencyItemsText()).not.toContain(secret.slice('whsec_'.length));
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await replay.text()).toBe(firstBody);

    const [rotated, rotatedReplay] = await twice(`/v1/webhooks/endpoints/${id}/secret-rotations`, key);
    expect(rotated.status).toBe(200);
    const rotatedBody = await rotated.text();
    const rotatedSecret = (JSON.parse(rotatedBody) as { secret: string }).secret;
    expect(await idempotencyItemsText()).not.toContain(rotatedSecret.slice('whsec_'.length));
    expect(await rotatedReplay.text()).toBe(rotatedBody);
  });
});
