import { EndpointCache as PackageEndpointCache } from '@aws-sdk/endpoint-cache';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EndpointCache } from '../../infra/lambda-aliases/endpoint-cache.ts';
import debugStub from '../../infra/lambda-aliases/debug.ts';
import * as eventStreams from '../../infra/lambda-aliases/smithy-event-streams.ts';

/** The modules infra/bundling.ts puts in place of SDK packages in Lambda bundles. */

const KEYS = ['a', 'b', 'c', 'd'];

type Operation =
  | { op: 'set'; key: string; addresses: string[]; minutes: number }
  | { op: 'get' | 'getEndpoint' | 'has' | 'delete'; key: string }
  | { op: 'clear' }
  | { op: 'wait'; minutes: number };

const operation: fc.Arbitrary<Operation> = fc.oneof(
  fc.record({
    op: fc.constant('set' as const),
    key: fc.constantFrom(...KEYS),
    addresses: fc.array(fc.constantFrom('x', 'y'), { minLength: 1, maxLength: 2 }),
    minutes: fc.integer({ min: 1, max: 5 }),
  }),
  fc.record({ op: fc.constantFrom('get' as const, 'getEndpoint' as const, 'has' as const, 'delete' as const), key: fc.constantFrom(...KEYS) }),
  fc.record({ op: fc.constant('clear' as const) }),
  fc.record({ op: fc.constant('wait' as const), minutes: fc.integer({ min: 1, max: 3 }) }),
);

describe('the endpoint cache of Lambda bundles', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: Date.parse('2026-01-01T00:00:00Z') });
    // getEndpoint picks one of several addresses at random: both caches must draw the same one.
    vi.spyOn(Math, 'random').mockReturnValue(0.5);
  });

  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  it('answers every sequence of calls as @aws-sdk/endpoint-cache does (expiry and LRU eviction included)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 3 }), fc.array(operation, { maxLength: 40 }), (capacity, operations) => {
        vi.setSystemTime(Date.parse('2026-01-01T00:00:00Z'));
        const ours = new EndpointCache(capacity);
        const theirs = new PackageEndpointCache(capacity);
        for (const step of operations) {
          if (step.op === 'wait') {
            vi.advanceTimersByTime(step.minutes * 60_000);
            continue;
          }
          const call = (cache: EndpointCache | PackageEndpointCache): unknown => {
            switch (step.op) {
              case 'set':
                return cache.set(
                  step.key,
                  step.addresses.map((Address) => ({ Address, CachePeriodInMinutes: step.minutes })),
                );
              case 'clear':
                return cache.clear();
              default:
                return cache[step.op](step.key);
            }
          };
          expect(call(ours), JSON.stringify(step)).toEqual(call(theirs));
        }
        for (const key of KEYS) expect(ours.has(key), key).toBe(theirs.has(key));
      }),
      { numRuns: 500 },
    );
  });

  it('refuses a capacity that is not positive, as the package does', () => {
    expect(() => new EndpointCache(0)).toThrow();
    expect(() => new PackageEndpointCache(0)).toThrow();
  });
});

describe('the event-stream stub of Lambda bundles', () => {
  it('lets a client wire its marshaller at construction', () => {
    const config = eventStreams.resolveEventStreamSerdeConfig({ eventStreamSerdeProvider: eventStreams.eventStreamSerdeProvider });
    expect(config.eventStreamMarshaller).toBeDefined();
  });

  it('fails loudly when an event stream would be read or written', () => {
    const marshaller = eventStreams.eventStreamSerdeProvider();
    expect(() => marshaller.deserialize()).toThrow(/Event streams are not bundled/);
    expect(() => marshaller.serialize()).toThrow(/Event streams are not bundled/);
    expect(() => new eventStreams.EventStreamSerde()).toThrow(/Event streams are not bundled/);
  });
});

describe('the debug stub of Lambda bundles', () => {
  it('behaves as `debug` does without DEBUG: disabled loggers that print nothing, namespaces extended alike', async () => {
    // Prepare
    const saved = process.env.DEBUG;
    delete process.env.DEBUG;
    vi.resetModules();
    // @ts-expect-error -- debug ships no types; only its documented call shape is used here
    const real = ((await import('debug')) as { default: typeof debugStub }).default;
    const writes = vi.spyOn(process.stderr, 'write');

    // Act
    const [ours, theirs] = [debugStub('tokenizer:inflate'), real('tokenizer:inflate')];
    ours('Reading central-directory...');
    theirs('Reading central-directory...');

    // Assess
    expect(writes).not.toHaveBeenCalled();
    expect([ours.enabled, ours.namespace, ours.extend('zip').namespace]).toEqual([Boolean(theirs.enabled), theirs.namespace, theirs.extend('zip').namespace]);
    expect(debugStub.enabled('tokenizer:inflate')).toBe(real.enabled('tokenizer:inflate'));
    if (saved !== undefined) process.env.DEBUG = saved;
  });
});
