import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { createKey, type CreateKeyRequest } from '../../lib/domain/auth/manage-keys.ts';
import type { ApiKeysStore } from '../../lib/store/api-keys-store.ts';
import { keyRegistry } from '../../local/key-registry.ts';

/** Helpers for tests that talk to the local server over HTTP. */

export const baseUrl = (): string => inject('stack').baseUrl;

/** A fresh organization per test keeps tests isolated on the shared stack. */
export function uniqueOrganization(): string {
  return `org_t${randomBytes(6).toString('hex')}`;
}

export function keysStore(): ApiKeysStore {
  return keyRegistry();
}

export async function createTestKey(overrides: Partial<CreateKeyRequest> = {}) {
  return createKey(keysStore(), {
    organizationId: overrides.organizationId ?? uniqueOrganization(),
    name: overrides.name ?? 'test key',
    scopes: overrides.scopes ?? ['all'],
    expiresAt: overrides.expiresAt,
    environment: 'test',
  });
}

export interface ApiCall {
  method?: string;
  key?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

export async function callApi(path: string, call: ApiCall = {}): Promise<Response> {
  const headers: Record<string, string> = { ...call.headers };
  if (call.key !== undefined) headers.authorization = `Bearer ${call.key}`;
  return fetch(`${baseUrl()}${path}`, { method: call.method ?? 'GET', headers, body: call.body });
}
