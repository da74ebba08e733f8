import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { generateApiKey, hashApiKey, isKeyUsable, isWellFormedApiKey, type ApiKeyRecord } from '../../../lib/platform/auth/api-key.ts';

describe('generateApiKey', () => {
  it('produces ik_<env>_<40 random base62><6 checksum> keys that validate', () => {
    // Act
    const key = generateApiKey('local');
    // Assess
    expect(key).toMatch(/^ik_local_[0-9A-Za-z]{46}$/);
    expect(isWellFormedApiKey(key)).toBe(true);
  });

  it('never repeats', () => {
    const keys = new Set(Array.from({ length: 1000 }, () => generateApiKey('test')));
    expect(keys.size).toBe(1000);
  });

  it('refuses an invalid environment', () => {
    expect(() => generateApiKey('Prod!')).toThrow();
  });
});

describe('isWellFormedApiKey', () => {
  const valid = generateApiKey('test');

  it.each([
    ['empty', ''],
    ['wrong prefix', valid.replace('ik_', 'ak_')],
    ['truncated', valid.slice(0, -1)],
    ['bad checksum', valid.slice(0, -1) + (valid.endsWith('A') ? 'B' : 'A')],
    ['one random char changed', valid.slice(0, 10) + (valid[10] === 'x' ? 'y' : 'x') + valid.slice(11)],
    ['too short random part', 'ik_test_abc123'],
    ['with whitespace', ` ${valid}`],
  ])('rejects %s', (_label, key) => {
    expect(isWellFormedApiKey(key)).toBe(false);
  });

  it('rejects arbitrary strings (property)', () => {
    fc.assert(fc.property(fc.string({ maxLength: 80 }), (candidate) => !isWellFormedApiKey(candidate) || candidate.startsWith('ik_')));
  });
});

describe('hashApiKey', () => {
  it('is hex SHA-256 and stable', () => {
    expect(hashApiKey('ik_test_x')).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey('ik_test_x')).toBe(hashApiKey('ik_test_x'));
  });
});

describe('isKeyUsable', () => {
  const now = new Date('2026-06-01T00:00:00Z');
  const record: ApiKeyRecord = {
    keyId: 'key_1',
    keyHash: 'h',
    organizationId: 'org_a',
    name: 'n',
    scopes: ['labels:read'],
    createdAt: '2026-01-01T00:00:00Z',
    revokedAt: null,
    expiresAt: null,
  };

  it.each([
    ['active, no expiry', {}, true],
    ['revoked', { revokedAt: '2026-05-01T00:00:00Z' }, false],
    ['expired', { expiresAt: '2026-05-31T23:59:59Z' }, false],
    ['expiring exactly now', { expiresAt: '2026-06-01T00:00:00Z' }, false],
    ['expiring later', { expiresAt: '2026-06-02T00:00:00Z' }, true],
  ])('%s → %s', (_label, change, usable) => {
    expect(isKeyUsable({ ...record, ...change }, now)).toBe(usable);
  });
});
