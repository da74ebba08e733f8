import type { AuthFailurePolicy } from '../rate-limit/auth-failures.ts';
import { positiveIntEnv } from './env.ts';
import { RATE_LIMIT_WINDOW_SECONDS } from './rate-limits.ts';

/**
 * The per-source limit on failed authentications (docs/api-guide.md "Failed authentications"),
 * read once at cold start: `AUTH_FAILURE_LIMIT_PER_MINUTE` failed authentications per source IP
 * address and 60-second window, 100 without it. A set value that is not a positive integer fails
 * the cold start.
 */
export const AUTH_FAILURE_LIMIT_ENV = 'AUTH_FAILURE_LIMIT_PER_MINUTE';
export const DEFAULT_AUTH_FAILURE_LIMIT_PER_MINUTE = 100;

export function loadAuthFailurePolicy(): AuthFailurePolicy {
  return {
    limit: positiveIntEnv(AUTH_FAILURE_LIMIT_ENV, DEFAULT_AUTH_FAILURE_LIMIT_PER_MINUTE),
    windowSeconds: RATE_LIMIT_WINDOW_SECONDS,
  };
}
