import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { problemSchema } from '../../lib/platform/contracts/problem.ts';
import { callApi, createTestKey, fetchApi } from '../support/api.ts';
import { csvOf, importAndWait, itemsOf } from '../support/imports.ts';
import { FUZZ_TAGS, fuzzChoice, materialize, type FuzzRequest, type FuzzWorld } from '../support/route-fuzz.ts';
import { ALL_ROUTES } from '../support/routes.ts';
import { sampleWrite, type SampleIds } from '../support/write-samples.ts';

/**
 * A seeded fuzz of every route over HTTP: valid and malformed bodies, params and headers, with
 * Idempotency-Keys reused across routes (some first used on the routes that seal their stored
 * response). Bad input is a 4xx problem document, never a 5xx (docs/api-guide.md "Errors"); a
 * 429 is as good an answer as any. ROUTE_FUZZ_RUNS (default 1500) and ROUTE_FUZZ_SEED (46) run
 * it bigger or otherwise, e.g. `ROUTE_FUZZ_RUNS=10000 npx vitest run test/e2e/route-fuzz.test.ts`;
 * ROUTE_FUZZ_REPORT=1 prints how many answers of each status every route gave.
 */

const RUNS = Number(process.env.ROUTE_FUZZ_RUNS ?? 1500);
const SEED = Number(process.env.ROUTE_FUZZ_SEED ?? 46);
/** Organizations fuzzed side by side; each one's requests are sent in order. */
const LANES = 3;
/** Keys per organization: the general rate limit is per key (1200 a minute). */
const KEYS_PER_LANE = 3;

const route = (operationId: string) => {
  const found = ALL_ROUTES.find((candidate) => candidate.operationId === operationId);
  if (!found) throw new Error(`no route ${operationId}`);
  return found;
};

/** Sends the sample of `operationId` (a tag of its own unless `ids` gives one); the created record's id. */
async function created(key: string, operationId: string, ids: SampleIds = {}, idempotencyKey: string = randomUUID()): Promise<string> {
  const target = route(operationId);
  const { path, headers, body } = sampleWrite(target, idempotencyKey, { tag: randomUUID().slice(0, 8), ...ids });
  const response = await callApi(path, { method: target.method, key, headers, body });
  const json = (await response.json()) as { id?: string };
  expect(response.status, JSON.stringify(json)).toBe(target.success.status);
  return json.id ?? '';
}

/**
 * An organization where the samples' skus and locations exist, with stock to move, and BOMs of
 * the samples' tags: stock, build and reservation samples can succeed there. Its item ids are
 * the BOM samples' target and component.
 */
async function stockedOrganization() {
  const { key, record } = await createTestKey();
  const imports = [
    {
      kind: 'items',
      file: csvOf(
        ['sku', 'name', 'unit'],
        [
          ['SAMPLE-2', 'Assembly', 'ea'],
          ['SAMPLE-1', 'Part', 'ea'],
        ],
      ),
    },
    {
      kind: 'locations',
      file: csvOf(
        ['code', 'name', 'type'],
        [
          ['LOC-SAMPLE', 'Sample bin', 'bin'],
          ['LOC-A', 'Bin A', 'bin'],
          ['LOC-B', 'Bin B', 'bin'],
        ],
      ),
    },
    {
      kind: 'po-receipts',
      file: csvOf(
        ['poNumber', 'sku', 'locationCode', 'quantity'],
        [
          ['PO-SETUP', 'SAMPLE-1', 'LOC-SAMPLE', '100000'],
          ['PO-SETUP', 'SAMPLE-1', 'LOC-A', '100000'],
        ],
      ),
    },
  ];
  for (const submission of imports) expect((await importAndWait(key, submission)).status).toBe('succeeded');
  const items = await itemsOf(record.organizationId, ['SAMPLE-2', 'SAMPLE-1']);
  const itemIds = ['SAMPLE-2', 'SAMPLE-1'].map((sku) => items.get(sku)?.record.id ?? '');
  const ids: string[] = [];
  for (const tag of FUZZ_TAGS) ids.push(await created(key, 'createBom', { itemIds, tag }));
  ids.push(await created(key, 'createReservation'));
  return { key, organizationId: record.organizationId, itemIds, ids };
}

async function emptyOrganization() {
  const { key, record } = await createTestKey();
  return { key, organizationId: record.organizationId, itemIds: [] as string[], ids: [] as string[] };
}

/** Organizations with keys, a few records, and shared Idempotency-Keys first used on the routes that seal their responses. */
async function buildWorld(): Promise<FuzzWorld> {
  const sharedIdempotencyKeys = Array.from({ length: 8 }, (_, index) => `fuzz-shared-${index}`);
  const lanes: FuzzWorld['lanes'] = [];
  const ids: string[] = [];
  for (let lane = 0; lane < LANES; lane += 1) {
    // The first organization has stock (so stock and BOM requests can succeed), the others nothing.
    const { key, organizationId, itemIds, ids: records } = lane === 0 ? await stockedOrganization() : await emptyOrganization();
    ids.push(...records);
    const more = await Promise.all(Array.from({ length: KEYS_PER_LANE - 1 }, () => createTestKey({ organizationId })));
    const narrow = await createTestKey({ organizationId, scopes: ['inventory:read'] });
    const endpointId = await created(key, 'createWebhookEndpoint', {}, sharedIdempotencyKeys[0]);
    await created(key, 'rotateWebhookSecret', { id: endpointId }, sharedIdempotencyKeys[1]);
    ids.push(endpointId);
    if (lane === 0) {
      ids.push(await created(key, 'createAttachmentLink', { itemIds }));
      ids.push(await created(key, 'submitExport'));
      ids.push(...itemIds);
    }
    lanes.push({ keys: [key, ...more.map((extra) => extra.key)], narrowKey: narrow.key, itemIds });
  }
  return { lanes, ids, sharedIdempotencyKeys };
}

interface Finding {
  request: FuzzRequest;
  status: number | 'error';
  detail: string;
}

/** Answers by route and status, printed with ROUTE_FUZZ_REPORT=1. */
const tally = new Map<string, number>();

/** Sends one request; returns what is wrong with its answer, if anything. */
async function check(request: FuzzRequest): Promise<Finding | undefined> {
  const init: RequestInit = { method: request.method, headers: request.headers, ...(request.body === undefined ? {} : { body: request.body }) };
  let response: Response;
  try {
    response = await fetchApi(request.path, init);
  } catch (error) {
    return { request, status: 'error', detail: String(error).slice(0, 500) };
  }
  const text = await response.text();
  const label = `${request.route} ${response.status}`;
  tally.set(label, (tally.get(label) ?? 0) + 1);
  if (response.status >= 500) return { request, status: response.status, detail: text.slice(0, 300) };
  if (response.status < 400) return undefined;
  if (response.headers.get('content-type') !== 'application/problem+json')
    return { request, status: response.status, detail: `content-type ${response.headers.get('content-type')}` };
  let parsed: ReturnType<typeof problemSchema.safeParse>;
  try {
    parsed = problemSchema.safeParse(JSON.parse(text));
  } catch {
    return { request, status: response.status, detail: `not JSON: ${text.slice(0, 200)}` };
  }
  if (!parsed.success || !parsed.data.code) return { request, status: response.status, detail: `not a problem document: ${text.slice(0, 200)}` };
  return undefined;
}

const describeFinding = ({ request, status, detail }: Finding) => {
  const { authorization: _authorization, ...headers } = request.headers;
  const body = request.body === undefined ? '' : ` body=${JSON.stringify(String(request.body).slice(0, 200))}`;
  return `${status} ${request.method} ${request.path.slice(0, 200)} headers=${JSON.stringify(headers)}${body}\n  → ${detail}`;
};

describe('a seeded fuzz of every route', () => {
  let world: FuzzWorld;
  beforeAll(async () => {
    world = await buildWorld();
  });

  it(`answers ${RUNS} random requests (seed ${SEED}) without a 5xx, every 4xx a problem document`, { timeout: Math.max(120_000, RUNS * 100) }, async () => {
    // Prepare
    const requests = fc.sample(fuzzChoice, { seed: SEED, numRuns: RUNS }).map((choice) => materialize(world, choice));
    // Act
    const findings: Finding[] = [];
    await Promise.all(
      Array.from({ length: LANES }, async (_, lane) => {
        for (const request of requests.filter((candidate) => candidate.lane === lane)) {
          const finding = await check(request);
          if (finding) findings.push(finding);
        }
      }),
    );
    if (process.env.ROUTE_FUZZ_REPORT)
      console.log(
        [...tally]
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([label, count]) => `${count}\t${label}`)
          .join('\n'),
      );
    // Assess
    expect(findings.map(describeFinding).slice(0, 20), `${findings.length} of ${RUNS} requests answered wrongly`).toEqual([]);
  });
});
