import type { SendResult } from '../domain/deliver.ts';
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { refusedAddressReason, vetWebhookUrl } from '../domain/address-vetting.ts';
import { retryAfterSeconds } from '../domain/retry-after.ts';
import { createDnsResolve, type Resolve } from './webhook-dns.ts';

/**
 * One webhook delivery attempt over HTTP (docs/webhooks.md "Verifying deliveries"): the outbound
 * adapter of the delivery worker. The URL is vetted again, its host resolved at this attempt and
 * every address checked; the socket then connects to the vetted address itself (a `lookup` that
 * answers only it), so a DNS answer that changes after the check (rebinding) cannot redirect the
 * request, while TLS still names and verifies the URL's host. Connections are kept alive per
 * vetted address: an attempt reuses one only to the address it has just vetted. One deadline covers DNS, connect,
 * TLS, the response head and the (at most 4 KiB) body read; redirects are never followed. DNS is
 * a cancellable resolver (lib/webhooks/transport/webhook-dns.ts); when an address cannot be connected to
 * (refused, unreachable, or no connection within its share of the deadline) the next vetted
 * address is tried (docs/webhooks.md "Fairness").
 */

export interface WebhookSender {
  send(input: { url: string; body: string; headers: Record<string, string> }): Promise<SendResult>;
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

/** Idle kept-alive connections close after this long: before a server's own idle close (Node's default is 5 s), so a reused one is rarely already closed. */
export const WEBHOOK_IDLE_CONNECTION_MS = 4000;
/** Addresses whose connections are kept at most; the least recently used one's are closed past it. */
const MAX_POOLED_ADDRESSES = 256;
const MAX_IDLE_CONNECTIONS_PER_HOST = 16;

/**
 * Keep-alive connection pools, one per protocol and vetted address. The pool is chosen by the
 * address the attempt has just resolved and vetted, so a pooled connection only ever serves an
 * attempt that would connect to that same address now (docs/webhooks.md "Verifying deliveries").
 */
class PinnedPools {
  private readonly pools = new Map<string, HttpAgent>();

  agentFor(protocol: string, address: string): HttpAgent {
    const key = `${protocol}|${address}`;
    const existing = this.pools.get(key);
    if (existing) {
      // Most recently used last: the first is the one to close.
      this.pools.delete(key);
      this.pools.set(key, existing);
      return existing;
    }
    const options = { keepAlive: true, timeout: WEBHOOK_IDLE_CONNECTION_MS, maxFreeSockets: MAX_IDLE_CONNECTIONS_PER_HOST, scheduling: 'lifo' as const };
    const agent = protocol === 'https:' ? new HttpsAgent(options) : new HttpAgent(options);
    this.pools.set(key, agent);
    if (this.pools.size > MAX_POOLED_ADDRESSES) {
      // Forgotten, not destroyed: a request on one of its connections may be under way. Its idle
      // connections close on their own timeout, and the pool goes with its last connection.
      const [oldestKey] = this.pools.keys();
      if (oldestKey !== undefined) this.pools.delete(oldestKey);
    }
    return agent;
  }
}

export function createWebhookSender(options: { allowLoopback: boolean; resolve?: Resolve; timeoutMs?: number; connectTimeoutMs?: number }): WebhookSender {
  const pools = new PinnedPools();
  const resolve = options.resolve ?? resolveThroughDns;
  const timeoutMs = options.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const connectTimeoutMs = Math.min(options.connectTimeoutMs ?? WEBHOOK_CONNECT_TIMEOUT_MS, timeoutMs);
  return {
    async send(input) {
      const startedAt = performance.now();
      const elapsed = () => Math.round(performance.now() - startedAt);
      const failed = (error: string): SendResult => ({
        outcome: 'failed',
        responseStatus: null,
        durationMs: elapsed(),
        error,
        retryAfterSeconds: null,
      });
      const deadline = AbortSignal.timeout(timeoutMs);
      const timedOut = (): SendResult => ({ ...failed(`timed out after ${timeoutMs} ms`), timedOut: true });

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
          const response = await postReusing(pools, url, address, input, deadline, connectTimeoutMs);
          return { ...classify(response), durationMs: elapsed() };
        } catch (error) {
          if (deadline.aborted) return timedOut();
          // Past the connection the request may have arrived: not sent to another address (a kept-alive connection found closed is the one exception, postReusing).
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

function classify(response: Response): Omit<SendResult, 'durationMs'> {
  const { status } = response;
  const retryAfter = retryAfterSeconds(status, response.retryAfter, new Date());
  if (status >= 200 && status < 300) return { outcome: 'succeeded', responseStatus: status, error: null, retryAfterSeconds: null };
  if (status === 410)
    return { outcome: 'gone', responseStatus: status, error: 'HTTP 410 Gone: the endpoint asked to stop deliveries', retryAfterSeconds: null };
  const error =
    status >= 300 && status < 400
      ? `HTTP ${status}: redirect${response.location ? ` to ${response.location.slice(0, 200)}` : ''} not followed`
      : `HTTP ${status}`;
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

/** A kept-alive connection the server had closed: the request never reached it. */
class StaleConnection extends Error {}

/**
 * POSTs over a kept-alive connection to `address` if one is idle, else a new one. A reused
 * connection reset (or broken) before any answer is almost always one the server had closed
 * while idle, the race every keep-alive client meets: the request goes once more, on a new
 * connection. If the server had in fact received it, it gets it twice: delivery is at least once,
 * de-duplicated by `webhook-id` (docs/webhooks.md "Verifying deliveries").
 */
async function postReusing(
  pools: PinnedPools,
  url: URL,
  address: string,
  input: { body: string; headers: Record<string, string> },
  signal: AbortSignal,
  connectTimeoutMs: number,
): Promise<Response> {
  try {
    return await post(url, address, input, signal, connectTimeoutMs, pools.agentFor(url.protocol, address));
  } catch (error) {
    if (!(error instanceof StaleConnection)) throw error;
    return post(url, address, input, signal, connectTimeoutMs, false);
  }
}

/**
 * POSTs to `url` over a socket connected to `address`; resolves once the head and the body (up to
 * 4 KiB: beyond, the connection is closed) are in. Rejects with a ConnectFailure when no
 * connection was made within `connectTimeoutMs`.
 */
function post(
  url: URL,
  address: string,
  input: { body: string; headers: Record<string, string> },
  signal: AbortSignal,
  connectTimeoutMs: number,
  agent: HttpAgent | false,
): Promise<Response> {
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
      agent,
      // An attempt's own deadline governs it; the pool's idle timeout applies once the connection is free again.
      timeout: WEBHOOK_TIMEOUT_MS,
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
    let answered = false;
    outgoing.on('error', (error) => {
      const code = (error as NodeJS.ErrnoException).code;
      if (outgoing.reusedSocket && !answered && !signal.aborted && (code === 'ECONNRESET' || code === 'EPIPE'))
        return reject(new StaleConnection('the kept-alive connection was closed', { cause: error }));
      reject(connected || signal.aborted ? error : new ConnectFailure(error, error instanceof ConnectTimeout));
    });
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
      answered = true;
      const response: Response = {
        status: incoming.statusCode ?? 0,
        retryAfter: header(incoming, 'retry-after'),
        location: header(incoming, 'location'),
      };
      let received = 0;
      incoming.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received < WEBHOOK_RESPONSE_READ_BYTES) return;
        // Read this far and no further: the connection goes with the rest of the body.
        incoming.destroy();
        resolve(response);
      });
      // Read to its end, the connection goes back to its pool.
      incoming.once('end', () => resolve(response));
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
