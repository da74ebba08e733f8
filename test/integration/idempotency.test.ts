import { describe, expect, it } from 'vitest';
import { idempotencyStore } from '../../lib/app/composition-writes.ts';
import { hashIdempotencyKey, requestFingerprint } from '../../lib/platform/write/idempotency.ts';
import { createTestKey } from '../support/api.ts';
import { auditOf, eventsOf, postWidget, widgetRoute, widgetsOf } from '../support/widgets.ts';

/**
 * Idempotency-Key on the real chain and the local DynamoDB (docs/api-guide.md "Idempotency"): one effect
 * per key, byte-identical replays, conflicts for different requests, tenant scoping, and
 * exactly-once behaviour across crashes before and after commit.
 */

/** The same records the widget route's chain uses. */
const idempotencyRecords = () => idempotencyStore;

const fingerprintOf = (body: unknown) => requestFingerprint({ method: 'POST', route: widgetRoute.path, path: {}, query: {}, body });

async function freshCaller() {
  const { key, record } = await createTestKey({ scopes: ['imports:write'] });
  return { key, organizationId: record.organizationId };
}

describe('Idempotency-Key', () => {
  it('gives one effect, one audit event, one domain event and an identical replay for a repeated request', async () => {
    // Prepare
    const { key, organizationId } = await freshCaller();
    // Act
    const first = await postWidget({ key, idempotencyKey: 'order-1', body: { name: 'bolt' } });
    const second = await postWidget({ key, idempotencyKey: 'order-1', body: { name: 'bolt' } });
    // Assess
    expect(first.status).toBe(201);
    expect(first.headers['Idempotent-Replayed']).toBeUndefined();
    expect(second.status).toBe(201);
    expect(second.body).toBe(first.body);
    expect(second.headers.Location).toBe(first.headers.Location);
    expect(second.headers['Idempotent-Replayed']).toBe('true');
    expect(await widgetsOf(organizationId)).toBe(1);
    const audit = await auditOf(organizationId);
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ kind: 'bom.created', idempotencyKey: 'order-1', actor: { type: 'api-key' } });
    expect(await eventsOf(organizationId)).toHaveLength(1);
  });

  it('answers 409 key-reused for a different body and keeps the first record intact', async () => {
    // Prepare
    const { key, organizationId } = await freshCaller();
    const first = await postWidget({ key, idempotencyKey: 'k', body: { name: 'bolt' } });
    // Act
    const different = await postWidget({ key, idempotencyKey: 'k', body: { name: 'nut' } });
    const third = await postWidget({ key, idempotencyKey: 'k', body: { name: 'bolt' } });
    // Assess
    expect(different.status).toBe(409);
    expect(different.json()).toMatchObject({ code: 'customer-api.idempotency.key-reused' });
    expect(third.status).toBe(201);
    expect(third.body).toBe(first.body);
    expect(third.headers['Idempotent-Replayed']).toBe('true');
    expect(await widgetsOf(organizationId)).toBe(1);
  });

  it('treats the same JSON with other whitespace and key order as the same request', async () => {
    const { key, organizationId } = await freshCaller();
    await postWidget({ key, idempotencyKey: 'ws', rawBody: '{"name":"bolt"}' });
    const replay = await postWidget({ key, idempotencyKey: 'ws', rawBody: '{ "name" : "bolt" }\n' });
    expect(replay.headers['Idempotent-Replayed']).toBe('true');
    expect(await widgetsOf(organizationId)).toBe(1);
  });

  it('runs 50 parallel identical requests exactly once; the others replay or are told it is in progress', async () => {
    // Prepare
    const { key, organizationId } = await freshCaller();
    // Act
    const responses = await Promise.all(Array.from({ length: 50 }, () => postWidget({ key, idempotencyKey: 'burst', body: { name: 'bolt' } })));
    // Assess
    const created = responses.filter((r) => r.status === 201);
    const inProgress = responses.filter((r) => r.status === 409);
    expect(created.length + inProgress.length).toBe(50);
    expect(created.filter((r) => r.headers['Idempotent-Replayed'] !== 'true')).toHaveLength(1);
    expect(new Set(created.map((r) => r.body)).size).toBe(1);
    for (const response of inProgress) {
      expect(response.json()).toMatchObject({ code: 'customer-api.idempotency.in-progress' });
      expect(response.headers['Retry-After']).toBe('1');
    }
    expect(await widgetsOf(organizationId)).toBe(1);
    expect(await eventsOf(organizationId)).toHaveLength(1);
    expect(await auditOf(organizationId)).toHaveLength(1);
  });

  it('scopes keys to the organization: the same key value in two organizations runs twice, each seeing its own response', async () => {
    // Prepare
    const a = await freshCaller();
    const b = await freshCaller();
    // Act
    const fromA = await postWidget({ key: a.key, idempotencyKey: 'shared', body: { name: 'bolt' } });
    const fromB = await postWidget({ key: b.key, idempotencyKey: 'shared', body: { name: 'bolt' } });
    // Assess
    expect(fromB.headers['Idempotent-Replayed']).toBeUndefined();
    expect(fromB.json().id).not.toBe(fromA.json().id);
    expect(await widgetsOf(a.organizationId)).toBe(1);
    expect(await widgetsOf(b.organizationId)).toBe(1);
  });

  it('lets a retry run exactly once after a crash before commit left a stale claim', async () => {
    // Prepare: a claim taken long enough ago that its lease has run out, as a crashed process leaves it.
    const { key, organizationId } = await freshCaller();
    const stale = await idempotencyRecords().claim(
      organizationId,
      hashIdempotencyKey('crashy'),
      fingerprintOf({ name: 'bolt' }),
      new Date(Date.now() - 10 * 60_000),
    );
    expect(stale.kind).toBe('claimed');
    // Act
    const retry = await postWidget({ key, idempotencyKey: 'crashy', body: { name: 'bolt' } });
    const again = await postWidget({ key, idempotencyKey: 'crashy', body: { name: 'bolt' } });
    // Assess
    expect(retry.status).toBe(201);
    expect(retry.headers['Idempotent-Replayed']).toBeUndefined();
    expect(again.headers['Idempotent-Replayed']).toBe('true');
    expect(await widgetsOf(organizationId)).toBe(1);
  });

  it('answers 409 in-progress with Retry-After while a live claim holds the key', async () => {
    const { key, organizationId } = await freshCaller();
    await idempotencyRecords().claim(organizationId, hashIdempotencyKey('busy'), fingerprintOf({ name: 'bolt' }), new Date());
    const response = await postWidget({ key, idempotencyKey: 'busy', body: { name: 'bolt' } });
    expect(response.status).toBe(409);
    expect(response.headers['Retry-After']).toBe('1');
    expect(response.json()).toMatchObject({ code: 'customer-api.idempotency.in-progress' });
    expect(await widgetsOf(organizationId)).toBe(0);
  });

  it('never runs the command twice after a crash after commit: the retry replays the committed response', async () => {
    // Prepare
    const { key, organizationId } = await freshCaller();
    // Act
    const crashed = await postWidget({ key, idempotencyKey: 'after', body: { name: 'bolt', failWith: 'crash-after-commit' } });
    const retry = await postWidget({ key, idempotencyKey: 'after', body: { name: 'bolt', failWith: 'crash-after-commit' } });
    // Assess
    expect(crashed.status).toBe(500);
    expect(retry.status).toBe(201);
    expect(retry.headers['Idempotent-Replayed']).toBe('true');
    expect(await widgetsOf(organizationId)).toBe(1);
    expect(await eventsOf(organizationId)).toHaveLength(1);
  });

  it('gives the key back after an unexpected failure before commit, so a retry runs', async () => {
    const { key, organizationId } = await freshCaller();
    const crashed = await postWidget({ key, idempotencyKey: 'before', body: { name: 'bolt', failWith: 'crash-before-commit' } });
    expect(crashed.status).toBe(500);
    expect(crashed.json()).toMatchObject({ code: 'customer-api.internal' });
    expect(JSON.stringify(crashed.json())).not.toContain('simulated');
    // The same request again fails the same way, and is not told "in progress".
    const again = await postWidget({ key, idempotencyKey: 'before', body: { name: 'bolt', failWith: 'crash-before-commit' } });
    expect(again.status).toBe(500);
    expect(await widgetsOf(organizationId)).toBe(0);
  });

  it('stores a 4xx the commit ended in, and replays it', async () => {
    const { key, organizationId } = await freshCaller();
    const first = await postWidget({ key, idempotencyKey: 'taken', body: { name: 'bolt', failWith: 'conflict' } });
    const replay = await postWidget({ key, idempotencyKey: 'taken', body: { name: 'bolt', failWith: 'conflict' } });
    expect(first.status).toBe(409);
    expect(first.json()).toMatchObject({ code: 'customer-api.items.sku-taken' });
    expect(replay.body).toBe(first.body);
    expect(replay.headers['Idempotent-Replayed']).toBe('true');
    expect(await widgetsOf(organizationId)).toBe(0);
    expect(await eventsOf(organizationId)).toHaveLength(0);
  });

  it('does not store a 4xx decided before the write began: a corrected retry with the same key runs', async () => {
    // Prepare
    const { key, organizationId } = await freshCaller();
    const refused = await postWidget({ key, idempotencyKey: 'fix-ref', body: { name: 'bolt', failWith: 'not-found' } });
    // Act
    const corrected = await postWidget({ key, idempotencyKey: 'fix-ref', body: { name: 'bolt' } });
    // Assess
    expect(refused.status).toBe(404);
    expect(corrected.status).toBe(201);
    expect(corrected.headers['Idempotent-Replayed']).toBeUndefined();
    expect(await widgetsOf(organizationId)).toBe(1);
  });

  it.each([
    ['no key', undefined, 'customer-api.idempotency.key-missing'],
    ['an empty key', '', 'customer-api.idempotency.key-invalid'],
    ['a 256-character key', 'k'.repeat(256), 'customer-api.idempotency.key-invalid'],
    ['a control character', 'abc\u0007', 'customer-api.idempotency.key-invalid'],
    ['leading spaces', '  abc', 'customer-api.idempotency.key-invalid'],
  ])('answers 400 for %s', async (_label, idempotencyKey, code) => {
    const { key, organizationId } = await freshCaller();
    const response = await postWidget({ key, idempotencyKey, body: { name: 'bolt' } });
    expect(response.status).toBe(400);
    expect(response.json()).toMatchObject({ code });
    expect(await widgetsOf(organizationId)).toBe(0);
  });

  it('accepts a 255-character key', async () => {
    const { key } = await freshCaller();
    expect((await postWidget({ key, idempotencyKey: 'k'.repeat(255), body: { name: 'bolt' } })).status).toBe(201);
  });

  it('stores nothing for validation and auth failures: a corrected retry with the same key runs', async () => {
    // Prepare
    const { key, organizationId } = await freshCaller();
    // Act
    const invalid = await postWidget({ key, idempotencyKey: 'fix-me', body: { name: '' } });
    const unauthenticated = await postWidget({ key: 'ik_test_nope', idempotencyKey: 'fix-me', body: { name: 'bolt' } });
    const corrected = await postWidget({ key, idempotencyKey: 'fix-me', body: { name: 'bolt' } });
    // Assess
    expect(invalid.status).toBe(400);
    expect(unauthenticated.status).toBe(401);
    expect(corrected.status).toBe(201);
    expect(corrected.headers['Idempotent-Replayed']).toBeUndefined();
    expect(await widgetsOf(organizationId)).toBe(1);
  });

  it('forgets a key 24 hours after its first use, judged from the stored time', async () => {
    // Prepare: a completed record created 25 hours ago, whose TTL deletion has not happened yet.
    const { key, organizationId } = await freshCaller();
    const old = await idempotencyRecords().claim(
      organizationId,
      hashIdempotencyKey('old'),
      fingerprintOf({ name: 'other' }),
      new Date(Date.now() - 25 * 3600_000),
    );
    if (old.kind !== 'claimed') throw new Error('expected a claim');
    await idempotencyRecords().complete(old.claim, { statusCode: 201, headers: {}, body: '{"old":true}' }, new Date(Date.now() - 25 * 3600_000));
    // Act
    const response = await postWidget({ key, idempotencyKey: 'old', body: { name: 'bolt' } });
    // Assess
    expect(response.status).toBe(201);
    expect(response.headers['Idempotent-Replayed']).toBeUndefined();
    expect(response.body).not.toContain('old');
  });
});
