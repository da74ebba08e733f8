import { optionalEnv } from './env.ts';

/**
 * Settings of the webhook flows that only the local runtime may set (docs/webhooks.md "Local
 * development"); the stack never does, and test/infra/webhooks.test.ts checks it.
 */

/** WEBHOOK_ALLOW_LOOPBACK=1: http://127.0.0.1:<port>/ and http://[::1]:<port>/ endpoints are accepted. */
export function webhookAllowLoopback(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.WEBHOOK_ALLOW_LOOPBACK === '1';
}

/** WEBHOOK_FIRST_RETRY_SECONDS: the wait after a first failed attempt instead of the schedule's 5 s (tests). */
export function webhookFirstRetrySeconds(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const raw = env === process.env ? optionalEnv('WEBHOOK_FIRST_RETRY_SECONDS') : env.WEBHOOK_FIRST_RETRY_SECONDS;
  if (raw === undefined || raw === '') return undefined;
  if (!/^(0|[1-9][0-9]*)$/.test(raw)) throw new Error(`WEBHOOK_FIRST_RETRY_SECONDS must be a whole number of seconds, got '${raw}'`);
  return Number(raw);
}

export const LOCAL_ONLY_WEBHOOK_SETTINGS = ['WEBHOOK_ALLOW_LOOPBACK', 'WEBHOOK_FIRST_RETRY_SECONDS'] as const;
