import { hashApiKey } from '../lib/platform/auth/api-key.ts';
import { createKey } from '../lib/platform/auth/manage-keys.ts';
import { keyRegistry } from './key-registry.ts';
import { readDevKey, writeDevKey } from './state.ts';

export const DEV_ORGANIZATION = 'org_dev';

/** The development key of org_dev with all scopes: created on first start, reused after. */
export async function ensureDevKey(stateDir: string): Promise<{ key: string; created: boolean }> {
  const store = keyRegistry();
  const existing = readDevKey(stateDir);
  if (existing && (await store.findByHash(hashApiKey(existing.key)))) return { key: existing.key, created: false };
  const { key, record } = await createKey(store, {
    organizationId: DEV_ORGANIZATION,
    name: 'development key',
    scopes: ['all'],
    environment: 'local',
  });
  writeDevKey(stateDir, { key, keyId: record.keyId, organizationId: DEV_ORGANIZATION });
  return { key, created: true };
}
