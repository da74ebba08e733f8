import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { refusedAddressReason, vetWebhookUrl } from '../domain/webhooks/address-vetting.ts';
import { retryAfterSeconds } from '../domain/webhooks/retry-after.ts';
import { createDnsResolve, type Resolve } from './webhook-dns.ts';

/**
 * One webhook delivery attempt over HTTP (docs/webhooks.md "Verifying deliveries"): the outbound
 * adapter of the delivery worker. The URL is vetted again, its host resolved at this attempt and
 * every address checked; the socket then connects to the vetted address itself (a `lookup` that
 * answers only it), so a DNS answer that changes after the check (rebinding) cannot redirect the
 * request, while TLS still names and verifies the URL's host. One deadline covers DNS, connect,
 * TLS, the response head and the (at most 4 KiB) body read; redirects are never followed. DNS is
 * a cancellable resolver (lib/store/webhook-dns.ts); when an address cannot be connected to
 * (refused, unreachable, or no connection within its share of the deadline) the next vetted
 * address is tried (docs/webhooks.md "Fairness").
 */

export interface WebhookAttemptResult {
  outcome: 'succeeded' | 'failed' | 'gone';
  responseStatus: number | null;
  durationMs: number;
  error: string | null;
  retryAfterSeconds: number | null;
  /** Present when the deadline ended the attempt. */
  timedOut?: true;
}

export interface WebhookSender {
  send(input: { url: string; body: string; headers: Record<string, string> }): Promise<WebhookAttemptResult>;
}

export const WEBHOOK_USER_AGENT = 'inventory-customer-api-webhooks/1.0 (+Standard Webhooks)';
export const WEBHOOK_TIMEOUT_MS = 15_000;
/** An address that has not accepted the connection after this long is given up for the next one. */
export const WEBHOOK_CONNECT_TIMEOUT_MS = 5000;
/**
 * The response body is read until this many bytes have arrived, then the connection is closed:
 * the rest is never received. (One socket read may carry up to 64 KiB past the mark; nothing is kept.)
 */
export const WEBHOOK_RESPONSE_READ_BYTES = 4096;

/** A resolver that answers the given hosts from `fixedAnswers` (local tests: WEBHOOK_TEST_RESOLVE) and every other host through DNS. */
export function resolveWithFixedAnswers(fixedAnswers: ReadonlyMap<string, readonly string[]>): Resolve {
  return async (host, signal) => {
    const fixed = fixedAnswers.get(host);
    return fixed ? [...fixed] : resolveThroughDns(host, signal);
  };
}

const resolveThroughDns = createDnsResolve();

export function createWebhookSender(options: { allowLoopback: boolean; resolve?: Resolve; timeoutMs?: number; connectTimeoutMs?: number }): WebhookSender {
  const resolve = options.resolve ?? resolveThroughDns;
  const timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const connectTimeoutMs = Math.min(options.connectTimeoutMs ?? WEBHOOK_CONNECT_TIMEOUT_MS, timeoutMs);
  return {
    async send(input) {
      const startedAt = performance.now();
      const elapsed = () => Math.round(performance.now() - startedAt);
      const failed = (error: string): WebhookAttemptResult => ({ outcome: 'failed', responseStatus: null, durationMs: elapsed(), error, retryAfterSeconds: null });
      const deadline = AbortSignal.timeout(timeoutMs);
      const timedOut = (): WebhookAttemptResult => ({ ...failed(`timed out after ${timeoutMs} ms`), timedOut: true });

      const vetted = vetWebhookUrl(input.url, { allowLoopback: options.allowLoopback });
      if (!vetted.ok) return failed(`refused: ${vetted.message}`);
      const url = vetted.url;
      const host = url.hostname.replace(/^\[(.*)\]$/u, '$1');

      let addresses: string[];
      try {
        addresses = isIP(host) === 0 ? await untilAborted(resolve(host, deadline), deadline) : [host];
      } catch (error) {
        if (deadline.aborted) return timedOut();
        const dnsFailure = failed(`refused: DNS lookup of ${host} failed (${describe(error)})`);
        // A name server that never answers costs the attempt its wait as a hanging endpoint does: the circuit breaker counts it.
        return (error as NodeJS.ErrnoException).code === 'ETIMEOUT' ? { ...dnsFailure, timedOut: true } : dnsFailure;
      }
      if (addresses.length === 0) return failed(`refused: ${host} resolved to no address`);
      for (const address of addresses) {
        const reason = refusedAddressReason(address, { allowLoopback: options.allowLoopback });
        if (reason !== null) return failed(`refused: ${host} resolves to ${address}, which is not public (${reason})`);
      }

      const unreachable: string[] = [];
      let anyConnectTimeout = false;
      for (const address of addresses) {
        try {
          const response = await post(url, address, input, deadline, connectTimeoutMs);
          return { ...classify(response), durationMs: elapsed() };
        } catch (error) {
          if (deadline.aborted) return timedOut();
          // Past the connection the request may have arrived: never sent twice.
          if (!(error instanceof ConnectFailure)) return failed(describe(error));
          unreachable.push(`${address}: ${describe(error.cause)}`);
          anyConnectTimeout ||= error.timedOut;
        }
      }
      const unconnected = failed(`could not connect to ${host} (${unreachable.join('; ')})`);
      // A host that never answered is what the circuit breaker is for; one that refused at once is not.
      return anyConnectTimeout ? { ...unconnected, timedOut: true } : unconnected;
    },
  };
}

interface Response {
  status: number;
  retryAfter: string | undefined;
  location: string | undefined;
}

function classify(response: Response): Omit<WebhookAttemptResult, 'durationMs'> {
  const { status } = response;
  const retryAfter = retryAfterSeconds(status, response.retryAfter, new Date());
  if (status >= 200 && status < 300) return { outcome: 'succeeded', responseStatus: status, error: null, retryAfterSeconds: null };
  if (status === 410) return { outcome: 'gone', responseStatus: status, error: 'HTTP 410 Gone: the endpoint asked to stop deliveries', retryAfterSeconds: null };
  const error =
    status >= 300 && status < 400 ? `HTTP ${status}: redirect${response.location ? ` to ${response.location.slice(0, 200)}` : ''} not followed` : `HTTP ${status}`;
  return { outcome: 'failed', responseStatus: status, error, retryAfterSeconds: retryAfter };
}

/** No connection to one address (refused, unreachable, or not accepted in time): nothing was sent, the next address may be tried. */
class ConnectFailure extends Error {
  constructor(
    cause: unknown,
    readonly timedOut: boolean,
  ) {
    super('could not connect', { cause });
  }
}

class ConnectTimeout extends Error {}

/**
 * POSTs to `url` over a socket connected to `address`; resolves once the head and ≤ 4 KiB of
 * body are in. Rejects with a ConnectFailure when no connection was made within `connectTimeoutMs`.
 */
function post(url: URL, address: string, input: { body: string; headers: Record<string, string> }, signal: AbortSignal, connectTimeoutMs: number): Promise<Response> {
  const body = Buffer.from(input.body, 'utf8');
  const family = isIP(address);
  // Node asks for every address when it races IPv4 and IPv6 (autoSelectFamily); either way only the vetted one is offered.
  const pinned: LookupFunction = (_hostname, lookupOptions, callback) => {
    if (lookupOptions.all) (callback as unknown as (error: null, addresses: Array<{ address: string; family: number }>) => void)(null, [{ address, family }]);
    else callback(null, address, family);
  };
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<Response>((resolve, reject) => {
    const outgoing = request(url, {
      method: 'POST',
      // agent: false: a fresh connection per attempt, so no pooled socket outlives its address check.
      agent: false,
      lookup: pinned,
      signal,
      headers: {
        ...input.headers,
        'content-type': 'application/json',
        'content-length': String(body.length),
        'user-agent': WEBHOOK_USER_AGENT,
      },
    });
    let connected = false;
    outgoing.on('error', (error) => reject(connected || signal.aborted ? error : new ConnectFailure(error, error instanceof ConnectTimeout)));
    outgoing.once('socket', (socket) => {
      if (!socket.connecting) {
        connected = true;
        return;
      }
      const connectTimer = setTimeout(() => outgoing.destroy(new ConnectTimeout(`no connection within ${connectTimeoutMs} ms`)), connectTimeoutMs);
      socket.once('connect', () => {
        connected = true;
        clearTimeout(connectTimer);
      });
      socket.once('close', () => clearTimeout(connectTimer));
    });
    outgoing.once('response', (incoming: IncomingMessage) => {
      const response: Response = {
        status: incoming.statusCode ?? 0,
        retryAfter: header(incoming, 'retry-after'),
        location: header(incoming, 'location'),
      };
      let received = 0;
      const done = () => {
        incoming.destroy();
        resolve(response);
      };
      incoming.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received >= WEBHOOK_RESPONSE_READ_BYTES) done();
      });
      incoming.once('end', done);
      incoming.on('error', reject);
      // A response cut short (the deadline, a reset) must settle too; after done() this is a no-op.
      incoming.once('close', () => reject(new Error('the connection closed before the response ended')));
    });
    outgoing.end(body);
  });
}

function header(incoming: IncomingMessage, name: string): string | undefined {
  const value = incoming.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as NodeJS.ErrnoException).code;
  return code && !error.message.includes(code) ? `${code}: ${error.message}` : error.message;
}
