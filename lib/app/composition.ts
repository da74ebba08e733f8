import { apiKeyCacheSeconds } from '../platform/config/api-key-cache.ts';
import { loadAuthFailurePolicy } from '../platform/config/auth-failures.ts';
import { requiredEnv } from '../platform/config/env.ts';
import { CachedApiKeyLookup } from '../platform/auth/cached-key-lookup.ts';
import { AuthFailureLimiter } from '../platform/rate-limit/auth-failures.ts';
import { TokenLeases } from '../platform/rate-limit/token-leases.ts';
import { loadRateLimitConfig } from '../platform/config/rate-limits.ts';
import type { ChainDependencies } from '../platform/http/chain.ts';
import { ApiKeyLookupStore } from '../platform/dynamo/api-key-lookup-store.ts';
import { RateLimitStore } from '../platform/dynamo/rate-limit-store.ts';
import { TABLES } from '../platform/storage/tables.ts';

/**
 * Composition root: the real adapters behind the chain's ports, built once per container at
 * cold start. A missing table name fails the cold start, not a request.
 */
const rateLimitStore = new RateLimitStore(requiredEnv(TABLES['rate-limits'].envVar));

export const chainDependencies: ChainDependencies = {
  apiKeys: new CachedApiKeyLookup(new ApiKeyLookupStore(requiredEnv(TABLES.keys.envVar)), apiKeyCacheSeconds()),
  // Module scope: the leased blocks live as long as the container (docs/api-guide.md "Rate limits").
  rateLimits: new TokenLeases(rateLimitStore),
  rateLimitPolicies: loadRateLimitConfig(),
  authFailures: new AuthFailureLimiter(rateLimitStore, loadAuthFailurePolicy()),
};
