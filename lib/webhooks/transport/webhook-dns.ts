import { Resolver } from 'node:dns/promises';

/**
 * The delivery worker's DNS (docs/webhooks.md "Fairness"): A and AAAA queries over c-ares
 * (`dns.promises.Resolver`), not `dns.lookup`, which runs on libuv's four-thread pool where a
 * lookup that hangs is never cancelled and holds a thread the next lookups wait for. Each
 * resolution has its own resolver, so a deadline cancels exactly its queries.
 */

/** Every address of a host: IPv4 first (what a Lambda function reaches without IPv6 egress), then IPv6. */
export type Resolve = (host: string, signal?: AbortSignal) => Promise<string[]>;

/** One query's wait, per server; with one try, a host that never answers fails within about this. */
export const DNS_QUERY_TIMEOUT_MS = 3000;

/** Codes of a name that exists without addresses of one family, which the other family may still have. */
const NO_ADDRESS_OF_FAMILY = new Set(['ENODATA', 'ENOTFOUND']);

export function createDnsResolve(options: { timeoutMs?: number; servers?: readonly string[] } = {}): Resolve {
  return async (host, signal) => {
    const resolver = new Resolver({ timeout: options.timeoutMs ?? DNS_QUERY_TIMEOUT_MS, tries: 1 });
    if (options.servers) resolver.setServers([...options.servers]);
    signal?.throwIfAborted();
    const cancel = () => resolver.cancel();
    signal?.addEventListener('abort', cancel, { once: true });
    try {
      const [v4, v6] = await Promise.allSettled([resolver.resolve4(host), resolver.resolve6(host)]);
      const addresses = [...(v4.status === 'fulfilled' ? v4.value : []), ...(v6.status === 'fulfilled' ? v6.value : [])];
      if (addresses.length > 0) return addresses;
      const failure = [v4, v6].find(
        (outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected' && !NO_ADDRESS_OF_FAMILY.has(errorCode(outcome.reason)),
      );
      // Both families empty: the name has no address (ENOTFOUND/ENODATA), else the first real failure (a timeout, a refusal).
      if (failure) throw failure.reason;
      if (v4.status === 'rejected') throw v4.reason;
      return [];
    } finally {
      signal?.removeEventListener('abort', cancel);
    }
  };
}

function errorCode(error: unknown): string {
  return (error as NodeJS.ErrnoException | undefined)?.code ?? '';
}
