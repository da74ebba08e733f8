
import { hashApiKey, isKeyUsable, isWellFormedApiKey } from '../../domain/auth/api-key.ts';
import type { ApiKeyLookup } from '../../domain/auth/ports.ts';
import type { Scope } from '../../domain/auth/scopes.ts';
import { InsufficientScopeError, UnauthenticatedError } from '../../domain/errors.ts';
import { header } from '../headers.ts';
import { stateOf, type HttpMiddleware, type MiddyRequest } from '../types.ts';

const BEARER = /^Bearer +(\S+) *$/i;

/**
 * Bearer API key + scope check. Runs before validation so an unauthenticated caller learns
 * nothing about input rules. Every refusal is the same 401 whatever the cause; a malformed or
 * bad-checksum key is refused before any storage read.
 */
export function authenticate(
  requiredScope: Scope,
  keys: ApiKeyLookup,
  now: () => Date = () => new Date(),
): HttpMiddleware {
  return {
    before: async (request: MiddyRequest) => {
      const match = BEARER.exec(header(request.event, 'authorization') ?? '');
      const key = match?.[1];
      if (!key || !isWellFormedApiKey(key)) throw new UnauthenticatedError();
      const record = await keys.findByHash(hashApiKey(key));
      if (!record || !isKeyUsable(record, now())) throw new UnauthenticatedError();
      if (!record.scopes.includes(requiredScope)) throw new InsufficientScopeError(requiredScope);
      stateOf(request).principal = { keyId: record.keyId, organizationId: record.organizationId, scopes: record.scopes };
    },
  };
}
