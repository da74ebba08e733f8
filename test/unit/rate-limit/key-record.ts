import { hashApiKey, type ApiKeyRecord } from '../../../lib/platform/auth/api-key.ts';

/** The stored record of a test key of organization `org_1`, as the keys table would return it. */
export function keyRecord(key: string, scopes: ApiKeyRecord['scopes'], revokedAt: string | null = null): ApiKeyRecord {
  return {
    keyId: `key_${hashApiKey(key).slice(0, 8)}`,
    keyHash: hashApiKey(key),
    organizationId: 'org_1',
    name: 'unit',
    scopes,
    createdAt: '2026-01-01T00:00:00Z',
    revokedAt,
    expiresAt: null,
  };
}
