import type { ApiKeyRecord } from './api-key.ts';

/** What authentication needs from storage. */
export interface ApiKeyLookup {
  findByHash(keyHash: string): Promise<ApiKeyRecord | undefined>;
}

/** What key management (the keys CLI) needs from storage. */
export interface ApiKeyRegistry extends ApiKeyLookup {
  create(record: ApiKeyRecord): Promise<void>;
  listByOrganization(organizationId: string): Promise<ApiKeyRecord[]>;
  revoke(keyId: string, revokedAt: string): Promise<ApiKeyRecord | undefined>;
}
