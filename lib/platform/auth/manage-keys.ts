import { newId } from '../core/ids.ts';
import { generateApiKey, hashApiKey, KEY_ENVIRONMENT_PATTERN, type ApiKeyRecord } from './api-key.ts';
import type { ApiKeyRegistry } from './ports.ts';
import { isScope, SCOPES, type Scope } from './scopes.ts';

export const ORGANIZATION_ID_PATTERN = /^org_[A-Za-z0-9_-]{1,64}$/;
const NAME_MAX_LENGTH = 100;

export class KeyManagementError extends Error {
  override name = 'KeyManagementError';
}

export interface CreateKeyRequest {
  organizationId: string;
  name: string;
  /** Scope names, or the single word `all`. */
  scopes: string[];
  expiresAt?: string;
  environment: string;
}

export interface CreatedKey {
  key: string;
  record: ApiKeyRecord;
}

export function parseScopes(requested: string[]): Scope[] {
  if (requested.length === 1 && requested[0] === 'all') return [...SCOPES];
  const unknown = requested.filter((scope) => !isScope(scope));
  if (requested.length === 0 || unknown.length > 0) {
    throw new KeyManagementError(`Unknown scope(s): ${unknown.join(', ') || '(none given)'}. Known: ${SCOPES.join(', ')} or 'all'.`);
  }
  return [...new Set(requested as Scope[])];
}

export async function createKey(registry: ApiKeyRegistry, request: CreateKeyRequest, now = new Date()): Promise<CreatedKey> {
  if (!ORGANIZATION_ID_PATTERN.test(request.organizationId)) {
    throw new KeyManagementError(`Organization id must look like org_<letters, digits, _ or ->, got '${request.organizationId}'.`);
  }
  const name = request.name.trim();
  if (name.length === 0 || name.length > NAME_MAX_LENGTH) throw new KeyManagementError(`Name must be 1..${NAME_MAX_LENGTH} characters.`);
  if (!KEY_ENVIRONMENT_PATTERN.test(request.environment)) throw new KeyManagementError(`Key environment must match ${KEY_ENVIRONMENT_PATTERN}.`);
  let expiresAt: string | null = null;
  if (request.expiresAt !== undefined) {
    const parsed = Date.parse(request.expiresAt);
    if (!/^\d{4}-\d{2}-\d{2}T/.test(request.expiresAt) || Number.isNaN(parsed)) {
      throw new KeyManagementError(`--expires must be an ISO 8601 date-time, got '${request.expiresAt}'.`);
    }
    expiresAt = new Date(parsed).toISOString();
  }
  const key = generateApiKey(request.environment);
  const record: ApiKeyRecord = {
    keyId: newId('key'),
    keyHash: hashApiKey(key),
    organizationId: request.organizationId,
    name,
    scopes: parseScopes(request.scopes),
    createdAt: now.toISOString(),
    revokedAt: null,
    expiresAt,
  };
  await registry.create(record);
  return { key, record };
}
