import { optionalEnv } from './env.ts';

/**
 * How long a container trusts a looked-up API key (docs/operations.md#api-key-cache), read once
 * at cold start: `API_KEY_CACHE_SECONDS`, 0 to look the key up on every request. It bounds how
 * long a revoked key keeps working.
 */
export const API_KEY_CACHE_ENV = 'API_KEY_CACHE_SECONDS';
export const DEFAULT_API_KEY_CACHE_SECONDS = 30;
export const MAX_API_KEY_CACHE_SECONDS = 300;

export function apiKeyCacheSeconds(): number {
  const raw = optionalEnv(API_KEY_CACHE_ENV);
  if (raw === undefined) return DEFAULT_API_KEY_CACHE_SECONDS;
  if (!/^[0-9]+$/.test(raw) || Number(raw) > MAX_API_KEY_CACHE_SECONDS) {
    throw new Error(`Environment variable ${API_KEY_CACHE_ENV} must be a whole number of seconds from 0 to ${MAX_API_KEY_CACHE_SECONDS}, got '${raw}'`);
  }
  return Number(raw);
}
