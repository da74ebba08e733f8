import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { code128, drawingSVG, qrcode, type DrawingContext, type RenderOptions } from 'bwip-js/generic';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { handler as barcodeHandler } from '../../functions/http/labels/render-barcode.ts';
import { RATE_LIMIT_ENV } from '../../lib/platform/config/rate-limits.ts';
import { routeById } from '../../lib/app/routes.ts';
import { SYMBOLOGIES } from '../../lib/labels/domain/symbologies.ts';
import { lambdaContext } from '../../local/lambda-event.ts';
import { importBundledHandler, type DynamoDbRequestCounter } from '../bundled-handler.ts';
import { median, type BenchContext, type Measure, type Suite } from './suite.ts';
import { createBenchKey } from './tenant.ts';

/**
 * GET /v1/barcodes through its deployed bundle, imported in process as two containers
 * (bench/bundled-handler.ts) — one with the token leases as deployed, one with
 * `RATE_LIMIT_LEASE_BLOCK_MAX=1`, the old behaviour of one rate-limit counter write per request
 * (the leases' baseline) — next to bwip-js called directly with the options
 * lib/labels/domain/encode-symbol.ts passes it, for QR and Code 128, in alternating batches of
 * the same size (the order rotates every batch) so a noisy machine slows all three alike. Every
 * call renders a payload of its own, so nothing can be served from a cache. Each container's
 * DynamoDB requests are counted on the wire during its batches: requests per call, leases vs one
 * write per request.
 *
 * The handler's extra work is the chain: the API key (cached per container), the rate-limit
 * token (leased in blocks, or one UpdateItem per request for the baseline), validation, the
 * layout around the symbol and the ETag. Each container has a key of its own (default 1200
 * requests per 60-s window); the suite waits for the next window, untimed, whenever a batch would
 * not fit in what the last response said remained.
 *
 * Then the conditional GET: a 200 gives an ETag, the same request with that If-None-Match must be
 * answered 304 with an empty body (the suite fails otherwise); both latencies are reported.
 */

type Format = 'qr' | 'code128';
type Encoder = (options: RenderOptions, drawing: DrawingContext<string>) => string;
type BarcodeHandler = typeof barcodeHandler;
type HandlerResponse = Awaited<ReturnType<BarcodeHandler>>;

const FORMATS: ReadonlyArray<{ format: Format; bcid: string; encode: Encoder; payload: (index: number) => string }> = [
  // Typical label payloads (an item id, a sku), with a counter in them so no two renders are alike.
  { format: 'qr', bcid: SYMBOLOGIES.qr.bcid, encode: qrcode, payload: (index) => `itm_01JD5R3Q6T9XW2K4M8N${String(index).padStart(7, '0')}` },
  { format: 'code128', bcid: SYMBOLOGIES.code128.bcid, encode: code128, payload: (index) => `SKU-${String(index).padStart(5, '0')}-ABC` },
];

/** docs/performance.md "Barcodes": QR ≥ 0.85, Code 128 ≥ 0.6 of raw bwip-js. */
const RATIO_TARGET_OF: Record<Format, number> = { qr: 0.85, code128: 0.6 };
/** Left in the key's window for other requests when deciding whether a batch fits. */
const RATE_LIMIT_MARGIN = 50;

interface Plan {
  batches: number;
  batchSize: number;
  warmup: number;
  conditionalPairs: number;
}

const FULL: Plan = { batches: 9, batchSize: 40, warmup: 10, conditionalPairs: 15 };
const QUICK: Plan = { batches: 3, batchSize: 10, warmup: 3, conditionalPairs: 3 };

function barcodeEvent(key: string, query: Record<string, string>, extraHeaders: Record<string, string> = {}): APIGatewayProxyEventV2 {
  const path = '/v1/barcodes';
  const now = Date.now();
  return {
    version: '2.0',
    routeKey: `GET ${path}`,
    rawPath: path,
    rawQueryString: new URLSearchParams(query).toString(),
    headers: { host: 'localhost', 'user-agent': 'bench', accept: 'image/svg+xml', authorization: `Bearer ${key}`, ...extraHeaders },
    queryStringParameters: query,
    requestContext: {
      accountId: '000000000000',
      apiId: 'bench',
      domainName: 'localhost',
      domainPrefix: 'bench',
      http: { method: 'GET', path, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'bench' },
      requestId: randomUUID(),
      routeKey: `GET ${path}`,
      stage: '$default',
      time: new Date(now).toUTCString(),
      timeEpoch: now,
    },
    isBase64Encoded: false,
  };
}

/** Invokes the handler in process, timing each call, and keeps within the key's rate limit. */
class HandlerCalls {
  /** Handler calls made so far. */
  calls = 0;
  /** What the last response's RateLimit header said was left in the key's window, and when it resets. */
  private remaining = Number.POSITIVE_INFINITY;
  private resetSeconds = 0;

  constructor(
    private readonly handler: BarcodeHandler,
    private readonly key: string,
    private readonly context: BenchContext,
  ) {}

  async invoke(query: Record<string, string>, headers?: Record<string, string>): Promise<{ response: HandlerResponse; ms: number }> {
    const event = barcodeEvent(this.key, query, headers);
    const invocation: Context = lambdaContext('bench-render-barcode', event.requestContext.requestId);
    const started = performance.now();
    const response = await this.handler(event, invocation);
    const ms = performance.now() - started;
    this.record(response);
    return { response, ms };
  }

  /** Waits (untimed) for the next rate-limit window unless `calls` more fit in the current one. */
  async ensureBudget(calls: number): Promise<void> {
    if (this.remaining >= calls + RATE_LIMIT_MARGIN) return;
    this.context.log(`barcodes: ${this.remaining} requests left in the key's rate-limit window, waiting ${this.resetSeconds} s for the next`);
    await sleep(this.resetSeconds * 1000 + 500);
    this.remaining = Number.POSITIVE_INFINITY;
  }

  private record(response: HandlerResponse): void {
    this.calls += 1;
    const match = /"general";r=(\d+);t=(\d+)/.exec(response.headers.RateLimit ?? '');
    if (match) {
      this.remaining = Number(match[1]);
      this.resetSeconds = Number(match[2]);
    }
    if (response.statusCode === 429) throw new Error(`GET /v1/barcodes answered 429 (rate limit): ${String(response.body)}`);
  }
}

function expectSvg(response: HandlerResponse, what: string): string {
  const body = typeof response.body === 'string' ? response.body : '';
  if (response.statusCode !== 200 || !body.startsWith('<svg') || !response.headers['Content-Type']?.startsWith('image/svg+xml')) {
    throw new Error(`${what}: expected a 200 SVG, got ${response.statusCode} ${response.headers['Content-Type']}: ${body.slice(0, 300)}`);
  }
  const etag = response.headers.ETag;
  if (!etag) throw new Error(`${what}: 200 without an ETag`);
  return etag;
}

interface Container {
  label: string;
  calls: HandlerCalls;
  requests: DynamoDbRequestCounter;
}

async function throughput(
  context: BenchContext,
  containers: readonly [Container, Container],
  plan: Plan,
  spec: (typeof FORMATS)[number],
  counter: { next: number },
): Promise<Measure[]> {
  const raw = (text: string) => spec.encode({ bcid: spec.bcid, text, scale: 1, padding: 0, includetext: false }, drawingSVG());
  const handlerBatch = async (calls: HandlerCalls, size: number): Promise<number> => {
    await calls.ensureBudget(size);
    const etags = new Set<string>();
    let elapsed = 0;
    for (let index = 0; index < size; index += 1) {
      const { response, ms } = await calls.invoke({ payload: spec.payload(counter.next++), format: spec.format });
      elapsed += ms;
      etags.add(expectSvg(response, `${spec.format} handler`));
    }
    if (etags.size !== size) throw new Error(`${spec.format}: ${size} different payloads gave only ${etags.size} different images`);
    return size / (elapsed / 1000);
  };
  const rawBatch = (size: number): number => {
    const started = performance.now();
    for (let index = 0; index < size; index += 1) {
      if (!raw(spec.payload(counter.next++)).startsWith('<svg')) throw new Error(`${spec.format}: bwip-js drew no SVG`);
    }
    return size / ((performance.now() - started) / 1000);
  };

  // Warm every path up: the format's encoder file, JIT, the key cache, the counter item.
  for (const container of containers) await handlerBatch(container.calls, plan.warmup);
  rawBatch(plan.warmup);
  for (const container of containers) container.requests.reset();
  const callsBefore = containers.map((container) => container.calls.calls);
  const rates: [number[], number[]] = [[], []];
  const rawRates: number[] = [];
  const ratios: [number[], number[]] = [[], []];
  // Three runners, the order rotating every batch (leases, baseline, raw; baseline, raw, leases; …).
  const runners: Array<() => Promise<number>> = [
    ...containers.map((container) => () => handlerBatch(container.calls, plan.batchSize)),
    () => Promise.resolve(rawBatch(plan.batchSize)),
  ];
  for (let batch = 0; batch < plan.batches; batch += 1) {
    const measured: number[] = [0, 0, 0];
    for (let step = 0; step < runners.length; step += 1) {
      const which = (batch + step) % runners.length;
      measured[which] = await (runners[which] as () => Promise<number>)();
    }
    const [leased = 0, baseline = 0, rawRate = 0] = measured;
    rates[0].push(leased);
    rates[1].push(baseline);
    rawRates.push(rawRate);
    ratios[0].push(leased / rawRate);
    ratios[1].push(baseline / rawRate);
  }
  const rawRate = median(rawRates);
  const note = `median of ${plan.batches} rotating batches of ${plan.batchSize}, a new payload per render`;
  const measures: Measure[] = [
    { name: `${spec.format}: raw bwip-js (renders/s)`, value: rawRate, unit: 'renders/s', note: `${note}; encoder with the domain renderer's options` },
  ];
  containers.forEach((container, index) => {
    const [rate, ratio] = [median(rates[index] ?? []), median(ratios[index] ?? [])];
    const calls = container.calls.calls - (callsBefore[index] ?? 0);
    const { total, operations } = container.requests.snapshot();
    context.log(
      `barcodes ${spec.format}, ${container.label}: handler ${rate.toFixed(0)} renders/s, ratio ${ratio.toFixed(2)} (batches: ${(ratios[index] ?? []).map((r) => r.toFixed(2)).join(' ')}); ${total} DynamoDB requests in ${calls} calls`,
    );
    measures.push(
      {
        name: `${spec.format}: handler, ${container.label} (renders/s)`,
        value: rate,
        unit: 'renders/s',
        note: `${note}; event → chain (auth, rate-limit token) → SVG`,
      },
      {
        name: `${spec.format}: handler ÷ raw bwip-js, ${container.label}`,
        value: ratio,
        unit: '×',
        ...(index === 0 ? { target: { comparison: '>=' as const, value: RATIO_TARGET_OF[spec.format] } } : {}),
        note: `median of the ${plan.batches} batches' ratios`,
      },
      {
        name: `${spec.format}: DynamoDB requests per call, ${container.label}`,
        value: total / calls,
        unit: 'requests',
        note: `${total} in ${calls} warm calls (${operations || 'none'})`,
      },
    );
  });
  return measures;
}

/** A 200, then the same request with its ETag as If-None-Match: it must be a 304 with no body. */
async function conditional(context: BenchContext, calls: HandlerCalls, plan: Plan, counter: { next: number }): Promise<Measure[]> {
  const qr = FORMATS[0];
  if (qr?.format !== 'qr') throw new Error('FORMATS must start with qr');
  await calls.ensureBudget(2 * plan.conditionalPairs);
  const rendered: number[] = [];
  const revalidated: number[] = [];
  for (let pair = 0; pair < plan.conditionalPairs; pair += 1) {
    const query = { payload: qr.payload(counter.next++), format: qr.format };
    const first = await calls.invoke(query);
    const etag = expectSvg(first.response, 'conditional GET, first request');
    const second = await calls.invoke(query, { 'if-none-match': etag });
    const { statusCode, body, headers } = second.response;
    if (statusCode !== 304) throw new Error(`If-None-Match ${etag} was answered ${statusCode}, not 304: ${String(body).slice(0, 300)}`);
    if (body !== undefined && body !== '') throw new Error(`The 304 to If-None-Match ${etag} has a body of ${String(body).length} characters`);
    if (headers.ETag !== etag) throw new Error(`The 304 carries ETag ${headers.ETag}, not ${etag}`);
    rendered.push(first.ms);
    revalidated.push(second.ms);
  }
  const [ms200, ms304] = [median(rendered), median(revalidated)];
  context.log(`barcodes: 200 render ${ms200.toFixed(2)} ms, 304 revalidation ${ms304.toFixed(2)} ms (median of ${plan.conditionalPairs})`);
  const note = `qr, median of ${plan.conditionalPairs} pairs: a new payload, then the same request with its ETag as If-None-Match`;
  return [
    { name: 'qr: 200 render latency, handler in process (ms)', value: ms200, unit: 'ms', note },
    { name: 'qr: 304 If-None-Match latency, handler in process (ms)', value: ms304, unit: 'ms', note },
  ];
}

export const barcodesSuite: Suite = {
  name: 'barcodes',
  async run(context) {
    const plan = context.quick ? QUICK : FULL;
    const route = routeById('renderBarcode');
    const directory = mkdtempSync(join(tmpdir(), 'bench-barcodes-'));
    const opened: Array<{ close(): Promise<void> }> = [];
    try {
      // Payloads count up from a random point (5 digits for a whole run), so a repeated run renders new images too.
      const counter = { next: 10_000 + Math.floor(Math.random() * 80_000) };
      const container = async (label: string, variant: string, env: Record<string, string>): Promise<Container> => {
        const key = await createBenchKey(`bench barcodes ${variant}`);
        const bundled = await importBundledHandler<BarcodeHandler>(route.handler, {
          directory,
          variant,
          env,
          warmup: async (handler) =>
            void expectSvg(
              await handler(barcodeEvent(key, { payload: 'WARMUP', format: 'qr' }), lambdaContext('bench-render-barcode', randomUUID())),
              'warm-up',
            ),
        });
        opened.push(bundled);
        return { label, calls: new HandlerCalls(bundled.handler, key, context), requests: bundled.requests };
      };
      const containers = [
        await container('token leases', 'leases', {}),
        await container('lease block 1 (baseline)', 'block-1', { [RATE_LIMIT_ENV.leaseBlockMax]: '1' }),
      ] as const;
      const measures: Measure[] = [];
      for (const spec of FORMATS) measures.push(...(await throughput(context, containers, plan, spec, counter)));
      measures.push(...(await conditional(context, containers[0].calls, plan, counter)));
      context.log(`barcodes: ${containers.map((c) => `${c.calls.calls} ${c.label} calls`).join(', ')}`);
      return measures;
    } finally {
      for (const bundled of opened) await bundled.close();
      rmSync(directory, { recursive: true, force: true });
    }
  },
};
