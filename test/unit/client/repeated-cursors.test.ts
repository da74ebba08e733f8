import { describe, expect, it } from 'vitest';
import type { CliContext } from '../../../client/cli/context.ts';
import { runCli } from '../../../client/cli/main.ts';
import {
  createInventoryClient,
  feedPages,
  paginate,
  RepeatedCursorError,
  traceLotAll,
  unwrap,
  type LotTrace,
  type LotTraceNode,
} from '../../../client/index.ts';
import { eventNumber } from './support/fake-feed.ts';
import { fakeFetch, json, recordingSleep, type RecordedRequest } from './support/fake-fetch.ts';

/**
 * Every paging helper of the client, and the CLI commands that page, stop with a
 * RepeatedCursorError when the API hands back a cursor or continuation the walk already followed
 * (docs/client.md#repeated-cursors), instead of asking for the same pages for ever. The fake API
 * gives up after a few requests, so a walk that would loop fails rather than hangs.
 */

const GIVE_UP_AFTER = 20;

function loopingApi(answer: (request: RecordedRequest) => unknown) {
  const transport = fakeFetch((request, index) => (index >= GIVE_UP_AFTER ? new Error(`looped: ${GIVE_UP_AFTER} requests`) : json(answer(request))));
  const client = createInventoryClient({
    baseUrl: 'http://api.test',
    apiKey: 'k',
    fetch: transport.fetch,
    sleep: recordingSleep().sleep,
    retry: { maxAttempts: 1 },
  });
  return { ...transport, client };
}

const caught = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );

const node = (lot: string, continuation: LotTraceNode['continuation'] = null): LotTraceNode => ({
  itemId: 'itm_COMP',
  sku: 'COMP',
  lot,
  quantity: 1,
  buildId: 'bld_1',
  bomId: 'bom_1',
  builtAt: '2026-11-27T10:00:00.000Z',
  truncated: continuation !== null,
  continuation,
  children: [],
});

const trace = (sku: string, lot: string, nodes: LotTraceNode[], continuation: LotTrace['continuation'] = null): LotTrace => ({
  sku,
  itemId: `itm_${sku}`,
  lot,
  direction: 'backward',
  depth: 5,
  nodeCount: nodes.length,
  truncated: continuation !== null || nodes.some((child) => child.truncated),
  continuation,
  nodes,
});

describe('paginate', () => {
  it('stops when a page hands back a cursor already followed', async () => {
    // Prepare: a → b → a …
    const api = loopingApi((request) => ({
      data: [request.url.searchParams.get('cursor') ?? 'first'],
      page: { nextCursor: request.url.searchParams.get('cursor') === 'b' ? 'a' : 'b' },
    }));
    const seen: string[] = [];
    // Act
    const error = await caught(
      (async () => {
        for await (const item of paginate((cursor) =>
          unwrap(api.client.api.GET('/v1/stock-records', { params: { query: { ...(cursor === undefined ? {} : { cursor }) } } })),
        ))
          seen.push(item as unknown as string);
      })(),
    );
    // Assess
    expect(error).toBeInstanceOf(RepeatedCursorError);
    expect(error).toMatchObject({ name: 'RepeatedCursorError', cursor: 'b' });
    expect(seen).toEqual(['first', 'b', 'a']);
    expect(api.requests).toHaveLength(3);
  });
});

describe('traceLotAll', () => {
  it('stops when a truncated answer continues with the request itself (nodes [], depth 5, cursor null)', async () => {
    // Prepare: what a backward trace of a build that drew 1,001 lots answered before builds were split.
    const api = loopingApi(() => trace('FIN', 'F1', [], { depth: 5, cursor: null }));
    // Act
    const error = await caught(traceLotAll(api.client, { sku: 'FIN', lot: 'F1', direction: 'backward' }));
    // Assess
    expect(error).toMatchObject({ name: 'RepeatedCursorError', cursor: null });
    expect((error as Error).message).toContain('FIN');
    expect(api.requests).toHaveLength(1);
  });

  it("stops when a node's continuation is answered with the same continuation", async () => {
    // Prepare
    const api = loopingApi((request) =>
      request.url.searchParams.get('sku') === 'FIN'
        ? trace('FIN', 'F1', [node('C1', { depth: 4, cursor: 'c-1' })])
        : trace('COMP', 'C1', [node('X')], { depth: 4, cursor: 'c-1' }),
    );
    // Act
    const error = await caught(traceLotAll(api.client, { sku: 'FIN', lot: 'F1', direction: 'backward' }));
    // Assess
    expect(error).toMatchObject({ name: 'RepeatedCursorError', cursor: 'c-1' });
    expect(api.requests).toHaveLength(2);
  });

  it('follows one continuation for each of two nodes of the same lot: not a repeat', async () => {
    // Prepare: lot C1 reached through two builds, both nodes cut the same way.
    const api = loopingApi((request) =>
      request.url.searchParams.get('sku') === 'FIN'
        ? trace('FIN', 'F1', [node('C1', { depth: 4, cursor: null }), node('C1', { depth: 4, cursor: null })])
        : trace('COMP', 'C1', [node('R1')]),
    );
    // Act
    const whole = await traceLotAll(api.client, { sku: 'FIN', lot: 'F1', direction: 'backward' });
    // Assess
    expect(whole.nodes.map((child) => child.children.map((grandchild) => grandchild.lot))).toEqual([['R1'], ['R1']]);
    expect(api.requests).toHaveLength(3);
  });
});

describe('feedPages', () => {
  it('stops when a page of events hands back the cursor it was read from', async () => {
    // Prepare
    const api = loopingApi(() => ({ data: [eventNumber(1), eventNumber(2)], page: { nextCursor: 'c2' } }));
    const pages: unknown[] = [];
    // Act
    const error = await caught(
      (async () => {
        for await (const page of feedPages(api.client, { limit: 2, follow: false })) pages.push(page);
      })(),
    );
    // Assess
    expect(error).toMatchObject({ name: 'RepeatedCursorError', cursor: 'c2' });
    // The page that repeats is not handed on: its checkpoint would not move.
    expect(pages).toHaveLength(1);
  });

  it('polls the tail with the same cursor while it stays empty: not a repeat', async () => {
    // Prepare: one page of events, then an empty tail answered with the same cursor; the fourth poll is the last.
    const stop = new AbortController();
    const api = loopingApi((request) => {
      if (request.url.searchParams.get('cursor') === null) return { data: [eventNumber(1)], page: { nextCursor: 'c1' } };
      if (api.requests.length >= 4) stop.abort();
      return { data: [], page: { nextCursor: 'c1' } };
    });
    // Act
    const pages: unknown[] = [];
    for await (const page of feedPages(api.client, { limit: 2, follow: true, idleDelayMs: 0, signal: stop.signal })) pages.push(page);
    // Assess
    expect(pages).toHaveLength(1);
    expect(api.requests.map((request) => request.url.searchParams.get('cursor'))).toEqual([null, 'c1', 'c1', 'c1']);
  });
});

describe('the CLI', () => {
  function cliContext(fetch: ReturnType<typeof loopingApi>['fetch']) {
    const out: string[] = [];
    const err: string[] = [];
    const cli: CliContext = {
      env: { INVENTORY_API_URL: 'http://api.test', INVENTORY_API_KEY: 'k' },
      stdout: { write: (text) => out.push(String(text)) },
      stderr: { write: (text) => err.push(text) },
      interactive: false,
      signal: new AbortController().signal,
      createClient: (options) => createInventoryClient({ ...options, fetch, sleep: recordingSleep().sleep }),
    };
    return { cli, out, err };
  }

  /** Every list a command pages answers one row and the cursor `again`, for ever. */
  const listForEver = () => ({ data: [{ id: 'row' }], page: { nextCursor: 'again' } });

  it.each([
    ['stock list', ['stock', 'list']],
    ['reservations list', ['reservations', 'list']],
    ['webhooks list', ['webhooks', 'list']],
    ['webhooks deliveries', ['webhooks', 'deliveries', '--endpoint', 'whe_1']],
  ])('%s stops with status 1 and says why', async (_command, argv) => {
    // Prepare
    const api = loopingApi(listForEver);
    const { cli, err } = cliContext(api.fetch);
    // Act
    const code = await runCli(argv, cli);
    // Assess
    expect(code).toBe(1);
    expect(err.join('')).toMatch(/already followed/);
    expect(api.requests).toHaveLength(2);
  });

  it('lots trace stops with status 1 on a continuation that repeats the request', async () => {
    // Prepare
    const api = loopingApi(() => trace('FIN', 'F1', [], { depth: 5, cursor: null }));
    const { cli, err } = cliContext(api.fetch);
    // Act
    const code = await runCli(['lots', 'trace', '--sku', 'FIN', '--lot', 'F1', '--direction', 'backward'], cli);
    // Assess
    expect(code).toBe(1);
    expect(err.join('')).toMatch(/already followed/);
    expect(api.requests).toHaveLength(1);
  });
});
