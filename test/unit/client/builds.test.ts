import { describe, expect, it } from 'vitest';
import type { CliContext } from '../../../client/cli/context.ts';
import { runCli } from '../../../client/cli/main.ts';
import { createInventoryClient, waitForBuild, type Build } from '../../../client/index.ts';
import { fakeFetch, json, problem, recordingSleep, type RecordedRequest } from './support/fake-fetch.ts';

/** The build helpers and `builds submit|get` in process, against a scripted API (docs/client.md#cli). */

function build(status: Build['status'], phase: Build['phase'], updatedAt: string, failure: Build['failure'] = null): Build {
  return {
    id: 'bld_1',
    buildReference: 'B-1',
    bomId: 'bom_1',
    revision: { id: 'rev_1', number: 1 },
    quantity: 2,
    locationId: 'loc_1',
    outputLot: null,
    status,
    phase,
    failure,
    submittedAt: '2026-12-01T00:00:00.000Z',
    updatedAt,
    completedAt: status === 'succeeded' || status === 'failed' ? updatedAt : null,
  };
}

const SHORT = {
  code: 'insufficient-stock',
  message: 'A component line lacks available stock; nothing was consumed.',
  lines: [{ line: 1, itemId: 'itm_2', sku: 'NUT', needed: 4, available: 1 }],
};

/** POST /v1/builds → queued; then each GET answers the next of `polls`, the last one repeating. */
function fakeBuildsApi(polls: Build[]) {
  let poll = 0;
  return fakeFetch((request: RecordedRequest) => {
    const route = `${request.method} ${request.url.pathname}`;
    if (route === 'POST /v1/builds') return json(build('queued', 'reserve', '2026-12-01T00:00:00.000Z'), 202, { location: '/v1/builds/bld_1' });
    if (route === 'GET /v1/builds/bld_1') return json(polls[Math.min(poll++, polls.length - 1)]);
    if (route === 'GET /v1/builds/bld_404') return problem(404, 'customer-api.builds.not-found');
    return problem(404, 'customer-api.route.not-found');
  });
}

function cliContext(fetch: ReturnType<typeof fakeBuildsApi>['fetch']) {
  const out: string[] = [];
  const err: string[] = [];
  const context: CliContext = {
    env: { INVENTORY_API_URL: 'http://api.test', INVENTORY_API_KEY: 'k' },
    stdout: { write: (text) => out.push(String(text)) },
    stderr: { write: (text) => err.push(text) },
    interactive: false,
    signal: new AbortController().signal,
    createClient: (options) => createInventoryClient({ ...options, fetch, sleep: recordingSleep().sleep }),
  };
  return { context, out: () => out.join(''), err: () => err.join('') };
}

describe('waitForBuild', () => {
  it('keeps its pause while steps commit and grows it while nothing moves, then answers the finished build', async () => {
    // Prepare: queued twice (nothing moves), then two steps, then done
    const transport = fakeBuildsApi([
      build('queued', 'reserve', 't0'),
      build('queued', 'reserve', 't0'),
      build('queued', 'reserve', 't0'),
      build('running', 'consume', 't1'),
      build('running', 'produce', 't2'),
      build('succeeded', 'done', 't3'),
    ]);
    const { sleep, sleeps } = recordingSleep();
    const client = createInventoryClient({ baseUrl: 'http://api.test', apiKey: 'k', fetch: transport.fetch, sleep });
    const seen: string[] = [];
    // Act
    const done = await waitForBuild(client, 'bld_1', { initialDelayMs: 100, maxDelayMs: 200, onProgress: (polled) => seen.push(polled.phase) });
    // Assess
    expect(done).toMatchObject({ status: 'succeeded', phase: 'done' });
    expect(seen).toEqual(['reserve', 'reserve', 'reserve', 'consume', 'produce', 'done']);
    expect(sleeps).toEqual([100, 150, 200, 200, 200]);
  });
});

describe('npm run cli -- builds', () => {
  it('submit sends every body flag and each --source, and prints the queued build', async () => {
    // Prepare
    const transport = fakeBuildsApi([]);
    const { context, out } = cliContext(transport.fetch);
    // Act
    const code = await runCli(
      [
        'builds',
        'submit',
        '--build-reference',
        'B-1',
        '--bom-code',
        'KIT',
        '--quantity',
        '2.5',
        '--location-code',
        'A1',
        '--output-lot',
        'OUT-1',
        '--source',
        'sku=BOLT,locationCode=B1',
        '--source',
        'itemId=itm_9,lot=L1',
        '--idempotency-key',
        'b-1',
      ],
      context,
    );
    // Assess
    expect(code).toBe(0);
    const [request] = transport.requests;
    expect(request?.headers.get('idempotency-key')).toBe('b-1');
    expect(JSON.parse(request?.body ?? '')).toEqual({
      buildReference: 'B-1',
      bomCode: 'KIT',
      quantity: 2.5,
      locationCode: 'A1',
      outputLot: 'OUT-1',
      sources: [
        { sku: 'BOLT', locationCode: 'B1' },
        { itemId: 'itm_9', lot: 'L1' },
      ],
    });
    expect(JSON.parse(out())).toMatchObject({ id: 'bld_1', status: 'queued' });
  });

  it('submit --wait prints each step on stderr, then the failed build, its failure and short lines; exit 1', async () => {
    // Prepare
    const transport = fakeBuildsApi([build('running', 'reserve', 't1'), build('failed', 'done', 't2', SHORT)]);
    const { context, out, err } = cliContext(transport.fetch);
    // Act
    const code = await runCli(
      ['builds', 'submit', '--build-reference', 'B-1', '--bom-id', 'bom_1', '--quantity', '2', '--location-id', 'loc_1', '--wait'],
      context,
    );
    // Assess
    expect(code).toBe(1);
    expect(JSON.parse(out())).toMatchObject({ status: 'failed', failure: SHORT });
    expect(err().split('\n')).toEqual([
      'bld_1 running reserve',
      'bld_1 failed done',
      `The build failed: insufficient-stock: ${SHORT.message}`,
      `  ${JSON.stringify(SHORT.lines[0])}`,
      '',
    ]);
  });

  it('get prints the build by its positional id; a 404 is printed on stderr, exit 1', async () => {
    const transport = fakeBuildsApi([build('succeeded', 'done', 't1')]);
    const found = cliContext(transport.fetch);
    const missing = cliContext(transport.fetch);
    expect(await runCli(['builds', 'get', 'bld_1'], found.context)).toBe(0);
    expect(JSON.parse(found.out())).toMatchObject({ id: 'bld_1', status: 'succeeded' });
    expect(await runCli(['builds', 'get', 'bld_404'], missing.context)).toBe(1);
    expect(missing.err()).toMatch(/^404 customer-api\.builds\.not-found: /);
  });

  it.each([
    [['submit', '--bom-code', 'KIT', '--quantity', '1', '--location-code', 'A1'], 'needs --build-reference'],
    [['submit', '--build-reference', 'B', '--quantity', '1', '--location-code', 'A1'], 'exactly one of --bom-code and --bom-id'],
    [
      ['submit', '--build-reference', 'B', '--bom-code', 'K', '--bom-id', 'bom_1', '--quantity', '1', '--location-code', 'A1'],
      'exactly one of --bom-code and --bom-id',
    ],
    [['submit', '--build-reference', 'B', '--bom-code', 'K', '--quantity', '1'], 'exactly one of --location-code and --location-id'],
    [['submit', '--build-reference', 'B', '--bom-code', 'K', '--quantity', 'two', '--location-code', 'A1'], "--quantity must be a positive number, not 'two'"],
    [
      ['submit', '--build-reference', 'B', '--bom-code', 'K', '--quantity', '1', '--location-code', 'A1', '--source', 'lot=L1'],
      '--source lot=L1: exactly one of sku and itemId',
    ],
    [
      ['submit', '--build-reference', 'B', '--bom-code', 'K', '--quantity', '1', '--location-code', 'A1', '--source', 'sku=X,bin=2'],
      '--source sku=X,bin=2: unknown bin',
    ],
    [['submit', '--file', 'body.json', '--quantity', '1'], 'not both (--quantity)'],
    [['get'], 'builds get needs exactly one build ID.'],
  ])('%j is a usage mistake: exit 2', async (args, message) => {
    const { context, err } = cliContext(fakeBuildsApi([]).fetch);
    expect(await runCli(['builds', ...args], context)).toBe(2);
    expect(err()).toContain(message);
    expect(err()).toContain('builds submit --build-reference REF');
  });
});
