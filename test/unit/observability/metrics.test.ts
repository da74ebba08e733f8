import { afterAll, afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createFallbackHandler } from '../../../lib/app/fallback.ts';
import { withProblemDocuments } from '../../../lib/platform/http/middleware/problem-documents.ts';
import { countFeedPage, countImportMessages, countImportRows, METRIC, WebhookAttemptTally } from '../../../lib/platform/observability/metrics.ts';
import { apiGatewayEvent, invocationContext } from '../../../local/api-gateway-events.ts';
import { captureOutput } from './capture-output.ts';
import { KEY, readHandler, readRoute, writeHandler } from './chain-fixture.ts';

/**
 * The metrics as CloudWatch reads them: EMF lines on stdout (docs/operations.md "Metrics"), with
 * metrics enabled as on Lambda (locally and in other tests they are off). Names, units and
 * dimensions here are what dashboards and alarms are built on.
 */

const previous = vi.hoisted(() => {
  const saved = { namespace: process.env.POWERTOOLS_METRICS_NAMESPACE, disabled: process.env.POWERTOOLS_METRICS_DISABLED };
  // Before any import: Powertools reads them when the metrics instance is created.
  process.env.POWERTOOLS_METRICS_NAMESPACE = 'CustomerApi/unit';
  process.env.POWERTOOLS_METRICS_DISABLED = 'false';
  return saved;
});

afterAll(() => {
  for (const [name, value] of [
    ['POWERTOOLS_METRICS_NAMESPACE', previous.namespace],
    ['POWERTOOLS_METRICS_DISABLED', previous.disabled],
  ] as const) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
});

interface EmfLine {
  _aws: { Timestamp: number; CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string; Unit: string }[] }[] };
  [key: string]: unknown;
}

/** One metric as emitted: its line's namespace, its unit, its dimensions with their values, its value. */
function emitted(lines: Record<string, unknown>[], name: string) {
  return lines
    .filter((line): line is EmfLine => typeof line._aws === 'object')
    .flatMap((line) =>
      line._aws.CloudWatchMetrics.flatMap((directive) =>
        directive.Metrics.filter((metric) => metric.Name === name).map((metric) => ({
          namespace: directive.Namespace,
          unit: metric.Unit,
          dimensions: Object.fromEntries((directive.Dimensions[0] ?? []).map((dimension) => [dimension, line[dimension]])),
          value: line[name],
        })),
      ),
    );
}

let output: ReturnType<typeof captureOutput>;

beforeEach(() => {
  output = captureOutput();
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('request metrics', () => {
  it('counts a success by operation and status class, in the stage namespace', async () => {
    // Prepare
    const invoke = readHandler(async () => ({ status: 200, json: {} }));

    // Act
    await invoke({ key: KEY });

    // Assess
    expect(emitted(output.json(), METRIC.requests)).toEqual([
      { namespace: 'CustomerApi/unit', unit: 'Count', dimensions: { service: 'customer-api', operation: 'testListThings', statusClass: '2xx' }, value: 1 },
    ]);
    expect(emitted(output.json(), METRIC.rejections)).toEqual([]);
  });

  it.each([
    ['auth', 'no key', {}, '4xx'],
    ['validation', 'a query parameter the operation does not know', { key: KEY, query: 'unknown=1' }, '4xx'],
  ] as const)('counts a rejection by reason %s (%s), and the request by its status class', async (reason, _label, request, statusClass) => {
    // Prepare
    const invoke = readHandler(async () => ({ status: 200, json: {} }));

    // Act
    await invoke(request);

    // Assess
    const lines = output.json();
    expect(emitted(lines, METRIC.rejections)).toEqual([
      { namespace: 'CustomerApi/unit', unit: 'Count', dimensions: { service: 'customer-api', reason }, value: 1 },
    ]);
    expect(emitted(lines, METRIC.requests)).toMatchObject([{ dimensions: { operation: 'testListThings', statusClass } }]);
  });

  it('counts a rate-limit rejection', async () => {
    // Prepare: a limit of one request per window
    const invoke = readHandler(async () => ({ status: 200, json: {} }), { limit: 1 });

    // Act
    await invoke({ key: KEY });
    const { response } = await invoke({ key: KEY });

    // Assess
    expect(response.statusCode).toBe(429);
    expect(emitted(output.json(), METRIC.rejections)).toMatchObject([{ dimensions: { reason: 'rate-limit' } }]);
  });

  it('counts a server error as 5xx, and not as a rejection', async () => {
    // Prepare
    const invoke = readHandler(async () => {
      throw new Error('storage unavailable');
    });

    // Act
    await invoke({ key: KEY });

    // Assess
    const lines = output.json();
    expect(emitted(lines, METRIC.requests)).toMatchObject([{ dimensions: { statusClass: '5xx' } }]);
    expect(emitted(lines, METRIC.rejections)).toEqual([]);
  });

  it("counts and flushes an idempotent replay, which answers before the chain's after hooks", async () => {
    // Prepare
    const invoke = writeHandler();

    // Act
    const response = await invoke({ key: KEY, headers: { 'content-type': 'application/json', 'idempotency-key': 'k-1' }, body: '{"name":"bolt"}' });

    // Assess
    expect(response.headers['Idempotent-Replayed']).toBe('true');
    expect(emitted(output.json(), METRIC.requests)).toEqual([
      { namespace: 'CustomerApi/unit', unit: 'Count', dimensions: { service: 'customer-api', operation: 'testCreateThing', statusClass: '2xx' }, value: 1 },
    ]);
  });

  it('counts and flushes the 500 of an error that escaped the chain', async () => {
    // Prepare
    const handler = withProblemDocuments(async () => {
      throw new Error('thrown by an onError hook');
    }, 'testListThings');
    const event = apiGatewayEvent(readRoute, { key: KEY });

    // Act
    const response = await handler(event, invocationContext(event));

    // Assess
    expect(response.statusCode).toBe(500);
    expect(emitted(output.json(), METRIC.requests)).toMatchObject([{ dimensions: { operation: 'testListThings', statusClass: '5xx' }, value: 1 }]);
  });

  it("counts the fallback's answers under operation $default", async () => {
    // Prepare
    const handler = createFallbackHandler();
    const event = apiGatewayEvent({ method: 'GET', path: '/v1/nowhere' });

    // Act
    const response = await handler(event, invocationContext(event));

    // Assess
    expect(response.statusCode).toBe(404);
    expect(emitted(output.json(), METRIC.requests)).toMatchObject([{ dimensions: { operation: '$default', statusClass: '4xx' } }]);
  });

  it('emits one line per request and nothing else, never an organization or key id', async () => {
    // Prepare
    const invoke = readHandler(async () => ({ status: 200, json: {} }));

    // Act
    await invoke({ key: KEY });
    await invoke({ key: KEY });

    // Assess
    const lines = output.lines().filter((line) => line.includes('"_aws"'));
    expect(output.lines()).toEqual(lines);
    expect(lines).toHaveLength(2);
    for (const forbidden of ['org_1', 'key_1', KEY]) expect(lines.join('\n')).not.toContain(forbidden);
  });
});

describe('feed and import metrics', () => {
  it('counts a feed page served, with the service as its only dimension', () => {
    // Act
    countFeedPage();

    // Assess
    expect(emitted(output.json(), METRIC.feedPagesServed)).toEqual([
      { namespace: 'CustomerApi/unit', unit: 'Count', dimensions: { service: 'customer-api' }, value: 1 },
    ]);
  });

  it('counts import rows by outcome, leaving out outcomes without rows', () => {
    // Act
    countImportRows({ created: 3, updated: 0, skipped: 1, failed: 2 });

    // Assess
    expect(emitted(output.json(), METRIC.importRows).map(({ dimensions, value, unit }) => ({ dimensions, value, unit }))).toEqual([
      { dimensions: { service: 'customer-api', outcome: 'created' }, value: 3, unit: 'Count' },
      { dimensions: { service: 'customer-api', outcome: 'skipped' }, value: 1, unit: 'Count' },
      { dimensions: { service: 'customer-api', outcome: 'failed' }, value: 2, unit: 'Count' },
    ]);
  });

  it('puts messages received and failed on the invocation line', async () => {
    // Prepare
    const { metrics } = await import('../../../lib/platform/observability/metrics.ts');

    // Act
    countImportMessages(5, 1);
    metrics.publishStoredMetrics();

    // Assess
    const lines = output.json();
    expect(emitted(lines, METRIC.importMessages)).toEqual([
      { namespace: 'CustomerApi/unit', unit: 'Count', dimensions: { service: 'customer-api' }, value: 5 },
    ]);
    expect(emitted(lines, METRIC.importMessagesFailed)).toMatchObject([{ value: 1 }]);
  });

  it("tallies webhook attempts: one line per outcome at the flush, the first attempts' delays as values of the invocation line", async () => {
    // Prepare
    const { metrics } = await import('../../../lib/platform/observability/metrics.ts');

    const tally = new WebhookAttemptTally();

    // Act
    tally.observe({ outcome: 'succeeded', commitToAttemptMs: 80 });
    tally.observe({ outcome: 'succeeded', commitToAttemptMs: 120 });
    tally.observe({ outcome: 'failed', commitToAttemptMs: null });
    const beforeFlush = output.json().length;
    tally.flush();
    metrics.publishStoredMetrics();
    tally.flush();

    // Assess
    const lines = output.json();
    expect(beforeFlush).toBe(0);
    expect(emitted(lines, METRIC.webhookAttempts).map(({ dimensions, value, unit }) => ({ dimensions, value, unit }))).toEqual([
      { dimensions: { service: 'customer-api', outcome: 'succeeded' }, value: 2, unit: 'Count' },
      { dimensions: { service: 'customer-api', outcome: 'failed' }, value: 1, unit: 'Count' },
    ]);
    expect(emitted(lines, METRIC.webhookCommitToAttempt)).toEqual([
      { namespace: 'CustomerApi/unit', unit: 'Milliseconds', dimensions: { service: 'customer-api' }, value: [80, 120] },
    ]);
  });
});
