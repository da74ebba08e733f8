import { positiveIntEnv } from './env.ts';

/**
 * How long an in-progress idempotency claim blocks retries before a retry may take over. It
 * must outlast the function timeout (10 s), so a live request is never run twice.
 */
export function idempotencyLeaseSeconds(): number {
  return positiveIntEnv('IDEMPOTENCY_LEASE_SECONDS', 30);
}
