import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { createKey, type CreateKeyRequest } from '../../lib/platform/auth/manage-keys.ts';
import type { ApiKeysStore } from '../../lib/platform/dynamo/api-keys-store.ts';
import { keyRegistry } from '../../local/key-registry.ts';
import { assertDocumentedResponse } from './openapi-responses.ts';

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
  body?: string | Buffer | FormData;
}

/**
 * `fetch` against the local server for a path (and query); the response must be one that
 * docs/openapi.json documents, or the call throws (test/support/openapi-responses.ts). Every
 * request of the e2e suites goes through here, so the document is checked against real traffic.
 */
export async function fetchApi(path: string, init: RequestInit = {}): Promise<Response> {
  const response = await fetch(`${baseUrl()}${path}`, init);
  await assertDocumentedResponse({ method: init.method ?? 'GET', url: path }, response);
  return response;
}

export async function callApi(path: string, call: ApiCall = {}): Promise<Response> {
  const headers: Record<string, string> = { ...call.headers };
  if (call.key !== undefined) headers.authorization = `Bearer ${call.key}`;
  return fetchApi(path, { method: call.method ?? 'GET', headers, body: call.body });
}
