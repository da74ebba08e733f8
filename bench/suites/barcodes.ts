import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { code128, drawingSVG, qrcode, type DrawingContext, type RenderOptions } from 'bwip-js/generic';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { handler as barcodeHandler } from '../../functions/http/labels/render-barcode.ts';
import { SYMBOLOGIES } from '../../lib/domain/labels/symbologies.ts';
import { lambdaContext } from '../../local/lambda-event.ts';
import { loadHandler } from '../../local/load-handler.ts';
import { median, type BenchContext, type Measure, type Suite } from './suite.ts';

/**
 * GET /v1/barcodes through its real Lambda handler, invoked in process (API Gateway v2 event →
 * Middy chain → response), next to bwip-js called directly with the options
 * lib/domain/labels/encode-symbol.ts passes it, for QR and Code 128, in alternating batches of
 * the same size (the order flips every batch) so a noisy machine slows both alike. Every call
 * renders a payload of its own, so nothing can be served from a cache.
 *
 * The handler's extra work is the chain: the API key (cached per container), the rate-limit
 * counter (one DynamoDB UpdateItem on the stack's DynamoDB Local per request), validation, the
 * layout around the symbol and the ETag. The handler calls count against the stack key's general
 * limit (default 1200 per 60-s window; the windows are shared with every other request made with
 * that key), so the suite makes at most ~800 of them and waits for the next window, untimed,
 * whenever a batch would not fit in what the last response said remained.
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

const RATIO_TARGET = 0.85;
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

async function throughput(context: BenchContext, calls: HandlerCalls, plan: Plan, spec: (typeof FORMATS)[number], counter: { next: number }): Promise<Measure[]> {
  const raw = (text: string) => spec.encode({ bcid: spec.bcid, text, scale: 1, padding: 0, includetext: false }, drawingSVG());
  const handlerBatch = async (size: number): Promise<number> => {
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

  // Warm both paths up: module load and cold start, JIT, the key cache, the counter item.
  await handlerBatch(plan.warmup);
  rawBatch(plan.warmup);
  const handlerRates: number[] = [];
  const rawRates: number[] = [];
  const ratios: number[] = [];
  for (let batch = 0; batch < plan.batches; batch += 1) {
    let handlerRate: number;
    let rawRate: number;
    if (batch % 2 === 0) {
      handlerRate = await handlerBatch(plan.batchSize);
      rawRate = rawBatch(plan.batchSize);
    } else {
      rawRate = rawBatch(plan.batchSize);
      handlerRate = await handlerBatch(plan.batchSize);
    }
    handlerRates.push(handlerRate);
    rawRates.push(rawRate);
    ratios.push(handlerRate / rawRate);
  }
  const [handlerRate, rawRate, ratio] = [median(handlerRates), median(rawRates), median(ratios)];
  context.log(`barcodes ${spec.format}: handler ${handlerRate.toFixed(0)} renders/s, raw bwip-js ${rawRate.toFixed(0)} renders/s, ratio ${ratio.toFixed(2)} (batches: ${ratios.map((r) => r.toFixed(2)).join(' ')})`);
  const note = `median of ${plan.batches} alternating batches of ${plan.batchSize}, a new payload per render`;
  return [
    { name: `${spec.format}: handler in process (renders/s)`, value: handlerRate, unit: 'renders/s', note: `${note}; event → chain (auth, rate-limit counter) → SVG` },
    { name: `${spec.format}: raw bwip-js (renders/s)`, value: rawRate, unit: 'renders/s', note: `${note}; encoder with the domain renderer's options` },
    { name: `${spec.format}: handler ÷ raw bwip-js`, value: ratio, unit: '×', target: { comparison: '>=', value: RATIO_TARGET }, note: `median of the ${plan.batches} batch pairs' ratios` },
  ];
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
    // Loaded only now: its module scope (the cold start) reads the stack's table names from process.env.
    const route = (await import('../../lib/routes/index.ts')).routeById('renderBarcode');
    const calls = new HandlerCalls(await loadHandler<BarcodeHandler>(route.handler), context.stack.key, context);
    // Payloads count up from a random point (5 digits for a whole run), so a repeated run renders new images too.
    const counter = { next: 10_000 + Math.floor(Math.random() * 80_000) };
    const measures: Measure[] = [];
    for (const spec of FORMATS) measures.push(...(await throughput(context, calls, plan, spec, counter)));
    measures.push(...(await conditional(context, calls, plan, counter)));
    context.log(`barcodes: ${calls.calls} handler calls`);
    return measures;
  },
};
