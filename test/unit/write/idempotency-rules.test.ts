import { describe, expect, it } from 'vitest';
import { BomCodeTakenError, RevisionConflictError } from '../../../lib/boms/domain/errors.ts';
import { ApiError, NotFoundError, ValidationError } from '../../../lib/platform/core/errors.ts';
import {
  decideOnExisting,
  isStoredRefusal,
  requestFingerprint,
  requireIdempotencyKey,
  type IdempotencyRecord,
} from '../../../lib/platform/write/idempotency.ts';
import { NaturalKeyTakenError } from '../../../lib/inventory/domain/records.ts';

describe('requestFingerprint', () => {
  const base = { method: 'POST', route: '/v1/boms', path: {}, query: {}, body: { a: 1, b: [1, 2] } };

  it('ignores key order', () => {
    expect(requestFingerprint({ ...base, body: { b: [1, 2], a: 1 } })).toBe(requestFingerprint(base));
  });

  it.each([
    ['method', { method: 'PUT' }],
    ['route', { route: '/v1/boms/{id}' }],
    ['path', { path: { id: 'bom_1' } }],
    ['query', { query: { x: '1' } }],
    ['body', { body: { a: 2, b: [1, 2] } }],
    ['array order', { body: { a: 1, b: [2, 1] } }],
  ])('changes with the %s', (_label, change) => {
    expect(requestFingerprint({ ...base, ...change })).not.toBe(requestFingerprint(base));
  });

  it('changes with a declared header such as If-Match', () => {
    expect(requestFingerprint({ ...base, headers: { 'If-Match': '"1.1"' } })).not.toBe(requestFingerprint({ ...base, headers: { 'If-Match': '"2.2"' } }));
    expect(requestFingerprint({ ...base, headers: { 'If-Match': '"1.1"' } })).not.toBe(requestFingerprint(base));
  });

  it('is unchanged by declared headers the request did not send', () => {
    expect(requestFingerprint({ ...base, headers: { 'If-Match': undefined } })).toBe(requestFingerprint(base));
    expect(requestFingerprint({ ...base, headers: {} })).toBe(requestFingerprint(base));
  });

  it('hashes files by content, not identity', () => {
    const withFile = (bytes: string) => requestFingerprint({ ...base, body: { file: Buffer.from(bytes) } });
    expect(withFile('abc')).toBe(withFile('abc'));
    expect(withFile('abc')).not.toBe(withFile('abd'));
  });
});

describe('requireIdempotencyKey', () => {
  it.each(['a', 'order-2026-0001', 'k'.repeat(255), 'with inner space'])('accepts %j', (key) => expect(requireIdempotencyKey(key)).toBe(key));
  it('says missing when absent', () => {
    expect(() => requireIdempotencyKey(undefined)).toThrow(expect.objectContaining({ code: 'customer-api.idempotency.key-missing' }));
  });
  it.each(['', 'k'.repeat(256), 'tab\there', 'nul\u0000', ' lead', 'trail ', 'ünïcode'])('refuses %j', (key) => {
    expect(() => requireIdempotencyKey(key)).toThrow(expect.objectContaining({ code: 'customer-api.idempotency.key-invalid' }));
  });
});

describe('decideOnExisting', () => {
  const now = new Date('2026-06-01T12:00:00Z');
  const completed: IdempotencyRecord = {
    status: 'completed',
    fingerprint: 'f',
    token: 't',
    createdAt: '2026-06-01T11:00:00Z',
    response: { statusCode: 201, headers: {}, body: '{}' },
  };
  const inProgress: IdempotencyRecord = {
    status: 'in-progress',
    fingerprint: 'f',
    token: 't',
    createdAt: '2026-06-01T11:59:59Z',
    leaseExpiresAt: '2026-06-01T12:00:29Z',
  };

  it('replays a completed record of the same request', () => {
    expect(decideOnExisting(completed, 'f', now)).toEqual({ action: 'replay', response: completed.response });
  });
  it('refuses another request under the key', () => {
    expect(decideOnExisting(completed, 'g', now)).toMatchObject({ action: 'reject', error: { code: 'customer-api.idempotency.key-reused' } });
  });
  it('says in progress while the lease runs', () => {
    expect(decideOnExisting(inProgress, 'f', now)).toMatchObject({ action: 'reject', error: { code: 'customer-api.idempotency.in-progress' } });
  });
  it('lets the same request take over an expired lease', () => {
    expect(decideOnExisting({ ...inProgress, leaseExpiresAt: '2026-06-01T11:59:59Z' }, 'f', now)).toEqual({ action: 'retry-claim' });
  });
  it('forgets records 24 hours old, whatever they were', () => {
    expect(decideOnExisting({ ...completed, createdAt: '2026-05-31T12:00:00Z' }, 'g', now)).toEqual({ action: 'retry-claim' });
  });
});

describe('isStoredRefusal', () => {
  it.each([
    ['a BOM code taken', new BomCodeTakenError('B-1')],
    ['a sku taken', new NaturalKeyTakenError('item', 'SKU-1')],
  ])('stores %s that the commit met', (_label, error) => {
    expect(isStoredRefusal(error, true)).toBe(true);
  });

  it('stores nothing decided before the commit, even a unique key taken', () => {
    expect(isStoredRefusal(new BomCodeTakenError('B-1'), false)).toBe(false);
  });

  it.each([
    ['invalid or unknown content', new ValidationError([{ location: 'body', pointer: '/targetItemId', code: 'unknown-item', message: 'No item.' }])],
    ['an unknown id', new NotFoundError('attachments')],
    ['a stale revision', new RevisionConflictError(2)],
    ['a concurrent change', new ApiError(409, 'customer-api.request.conflict', 'Conflict')],
  ])('gives the key back after %s, even when the commit met it', (_label, error) => {
    expect(isStoredRefusal(error, true)).toBe(false);
    expect(isStoredRefusal(error, false)).toBe(false);
  });
});
