/**
 * `@aws-sdk/endpoint-cache` for Lambda bundles (`LAMBDA_ALIASES` of infra/bundling.ts): the same
 * `EndpointCache` on a `Map`. The DynamoDB client builds one at construction for endpoint
 * discovery (off unless `AWS_ENABLE_ENDPOINT_DISCOVERY` turns it on); the package's LRU comes
 * from mnemonist, ~8 KB with its helpers in every function for a cache that stays empty.
 * test/infra/lambda-aliases.test.ts holds it to the package's behaviour.
 */

interface Endpoint {
  Address: string;
  CachePeriodInMinutes: number;
}

export interface EndpointWithExpiry {
  Address: string;
  Expires: number;
}

export class EndpointCache {
  /** In recency order, least recently used first (a `Map` iterates in insertion order). */
  private readonly cache = new Map<string, EndpointWithExpiry[]>();

  constructor(private readonly capacity: number) {
    // As mnemonist's LRU cache, which the package builds on.
    if (typeof capacity !== 'number' || capacity <= 0) throw new Error('mnemonist/lru-cache: capacity should be positive number.');
  }

  /** An unexpired endpoint for `key`, chosen at random. */
  getEndpoint(key: string): string | undefined {
    const endpointsWithExpiry = this.get(key);
    if (!endpointsWithExpiry || endpointsWithExpiry.length === 0) return undefined;
    const endpoints = endpointsWithExpiry.map((endpoint) => endpoint.Address);
    return endpoints[Math.floor(Math.random() * endpoints.length)];
  }

  /** The unexpired endpoints for `key`; reading makes it the most recently used. */
  get(key: string): EndpointWithExpiry[] | undefined {
    if (!this.has(key)) return undefined;
    const value = this.cache.get(key);
    if (!value) return undefined;
    this.store(key, value);
    const now = Date.now();
    const endpointsWithExpiry = value.filter((endpoint) => now < endpoint.Expires);
    if (endpointsWithExpiry.length === 0) {
      this.delete(key);
      return undefined;
    }
    return endpointsWithExpiry;
  }

  set(key: string, endpoints: Endpoint[]): void {
    const now = Date.now();
    this.store(
      key,
      endpoints.map(({ Address, CachePeriodInMinutes }) => ({ Address, Expires: now + CachePeriodInMinutes * 60 * 1000 })),
    );
  }

  delete(key: string): void {
    this.store(key, []);
  }

  /** Whether `key` holds endpoints; does not count as a use. */
  has(key: string): boolean {
    const endpoints = this.cache.get(key);
    return endpoints !== undefined && endpoints.length > 0;
  }

  clear(): void {
    this.cache.clear();
  }

  /** Sets `key` as the most recently used entry, dropping the least recently used one past capacity. */
  private store(key: string, value: EndpointWithExpiry[]): void {
    this.cache.delete(key);
    this.cache.set(key, value);
    if (this.cache.size > this.capacity) {
      const leastRecent = this.cache.keys().next();
      if (!leastRecent.done) this.cache.delete(leastRecent.value);
    }
  }
}
