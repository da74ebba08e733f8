import { isIP } from 'node:net';
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

/**
 * WEBHOOK_TEST_RESOLVE: fixed DNS answers for a few host names, as JSON `{"<host>": ["<address>", …]}`,
 * so that tests can show a delivery refused because its host resolves to a private address
 * (docs/webhooks.md "Local development"). Other hosts are still resolved through DNS. Host names
 * are matched as the URL parser writes them (lower case); every answer must be an IP address.
 */
export function webhookTestResolve(env: NodeJS.ProcessEnv = process.env): ReadonlyMap<string, readonly string[]> | undefined {
  const raw = env === process.env ? optionalEnv('WEBHOOK_TEST_RESOLVE') : env.WEBHOOK_TEST_RESOLVE;
  if (raw === undefined || raw === '') return undefined;
  const invalid = (why: string) => new Error(`WEBHOOK_TEST_RESOLVE must be a JSON object of host name to IP addresses (${why})`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw invalid('not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw invalid('not an object');
  const answers = new Map<string, readonly string[]>();
  for (const [host, addresses] of Object.entries(parsed)) {
    if (host === '' || host !== host.toLowerCase()) throw invalid(`host '${host}' is not a lower-case name`);
    if (!Array.isArray(addresses) || addresses.length === 0 || !addresses.every((address) => typeof address === 'string' && isIP(address) !== 0)) {
      throw invalid(`the answer for '${host}' is not a non-empty list of IP addresses`);
    }
    answers.set(host, addresses as string[]);
  }
  return answers;
}

export const LOCAL_ONLY_WEBHOOK_SETTINGS = ['WEBHOOK_ALLOW_LOOPBACK', 'WEBHOOK_FIRST_RETRY_SECONDS', 'WEBHOOK_TEST_RESOLVE'] as const;
