import { apiKeyCacheSeconds } from './config/api-key-cache.ts';
import { loadAuthFailurePolicy } from './config/auth-failures.ts';
import { requiredEnv } from './config/env.ts';
import { CachedApiKeyLookup } from './domain/auth/cached-key-lookup.ts';
import { AuthFailureLimiter } from './domain/rate-limit/auth-failures.ts';
import { TokenLeases } from './domain/rate-limit/token-leases.ts';
import { loadRateLimitConfig } from './config/rate-limits.ts';
import type { ChainDependencies } from './http/chain.ts';
import { ApiKeyLookupStore } from './store/api-key-lookup-store.ts';
import { RateLimitStore } from './store/rate-limit-store.ts';
import { TABLES } from './store/tables.ts';

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
