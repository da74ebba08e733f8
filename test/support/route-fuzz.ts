import fc from 'fast-check';
import { operationEntry } from '../../lib/app/operations.ts';
import type { RouteDefinition } from '../../lib/platform/contracts/route-types.ts';
import { rawMultipart } from './imports.ts';
import { ALL_ROUTES, concretePath, isWrite } from './routes.ts';
import { sampleWrite } from './write-samples.ts';

/**
 * Random requests to every route of the table (test/e2e/route-fuzz.test.ts): a mix of requests
 * that pass validation (the write samples of test/support/write-samples.ts, with real ids) and
 * malformed ones (bodies, params, headers), under Idempotency-Keys shared across routes.
 */

/** What the generated requests may name: per organization ("lane"), its API keys and record ids. */
export interface FuzzWorld {
  lanes: Array<{ keys: string[]; narrowKey: string; itemIds: string[] }>;
  /** Ids of records of every lane (another lane's is someone else's: a 404). */
  ids: string[];
  /** Idempotency-Keys every route of a lane draws from, so keys are reused across routes. */
  sharedIdempotencyKeys: string[];
}

export interface FuzzRequest {
  lane: number;
  /** The route the request was made for (a junk path may reach another, or none). */
  route: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

/** Printable ASCII only: what a header value may be in `fetch`. */
const headerText = (maxLength: number) => fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)), maxLength });

const junkValue = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom('', '-1', '1e3', '007', '%', '2147483648', 'null', 'true', '[]'),
);

/** A JSON value to put in place of a field: anything, or something close to a valid value. */
const jsonValue = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom(0, -1, 1.5, 1e308, 2 ** 53, '', ' ', 'x'.repeat(300), null, [], {}, true, '2026-01-01T00:00:00Z', 'itm_01J0000000000000000000000Z'),
);

type Mutation = { kind: 'set'; field: string; value: unknown } | { kind: 'delete'; field: string } | { kind: 'line'; field: string; value: unknown };

function mutate(json: unknown, mutation: Mutation): unknown {
  if (json === null || typeof json !== 'object' || Array.isArray(json)) return json;
  const copy: Record<string, unknown> = { ...(json as Record<string, unknown>) };
  if (mutation.kind === 'delete') delete copy[mutation.field];
  else if (mutation.kind === 'set') copy[mutation.field] = mutation.value;
  else {
    // A field of the first line (stock, BOM components, reservations), where the rules are subtler.
    const listName = Object.keys(copy).find((key) => Array.isArray(copy[key]));
    const list = listName ? (copy[listName] as unknown[]) : [];
    const [first, ...rest] = list;
    if (listName && first !== null && typeof first === 'object')
      copy[listName] = [{ ...(first as Record<string, unknown>), [mutation.field]: mutation.value }, ...rest];
  }
  return copy;
}

const FIELD_NAMES = [
  'kind',
  'url',
  'lines',
  'components',
  'quantity',
  'sku',
  'lot',
  'reference',
  'expectedQuantity',
  'itemId',
  'locationCode',
  'eventTypes',
  'fromUtc',
  'afterEventId',
  'filters',
  'format',
  'targetId',
  'expectedRevisionNumber',
  'x',
];
const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('set' as const), field: fc.constantFrom(...FIELD_NAMES), value: jsonValue }),
  fc.record({ kind: fc.constant('delete' as const), field: fc.constantFrom(...FIELD_NAMES) }),
  fc.record({ kind: fc.constant('line' as const), field: fc.constantFrom(...FIELD_NAMES), value: jsonValue }),
);

const MULTIPART_NAMES = ['kind', 'duplicateStrategy', 'dryRun', 'file', 'TargetKind', 'TargetId', 'File', 'FileKind', 'PageCount', 'x'];
const multipartParts = fc.array(
  fc.record({
    name: fc.constantFrom(...MULTIPART_NAMES),
    value: fc.oneof(fc.string({ maxLength: 60 }), fc.constantFrom('items', 'skip', 'true', 'item', 'sku,name\nA,a\n', '%PDF-1.4\n%%EOF\n', '')),
    fileName: fc.option(fc.constantFrom('a.csv', 'a.pdf', '', 'x"y.csv', '../../etc/passwd'), { nil: undefined }),
    contentType: fc.option(fc.constantFrom('text/csv', 'application/pdf', 'image/png', 'application/octet-stream'), { nil: undefined }),
  }),
  { maxLength: 6 },
);

/** How the body is made: the valid sample, a sample with a field changed, or something else entirely. */
const bodyChoice = fc.oneof(
  { weight: 4, arbitrary: fc.constant({ kind: 'sample' as const }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('mutated' as const), mutations: fc.array(mutation, { minLength: 1, maxLength: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('json' as const), value: fc.json({ maxDepth: 3 }) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('text' as const),
      value: fc.oneof(fc.string({ maxLength: 80 }), fc.constantFrom('', '{', '{"a":', 'null', '[]', '\u0000', '{"a":1}{"b":2}')),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('multipart' as const), parts: multipartParts, cut: fc.option(fc.nat(400), { nil: undefined }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'none' as const }) },
);

const contentTypeChoice = fc.oneof(
  { weight: 8, arbitrary: fc.constant<string | null>('as-built') },
  {
    weight: 1,
    arbitrary: fc.constantFrom<string | null>(
      null,
      'text/plain',
      'application/json; charset=latin1',
      'multipart/form-data',
      'application/x-www-form-urlencoded',
      'application/merge-patch+json',
      'text/json',
    ),
  },
  { weight: 1, arbitrary: headerText(40) },
);

const acceptChoice = fc.oneof(
  { weight: 6, arbitrary: fc.constant<string | null>(null) },
  {
    weight: 2,
    arbitrary: fc.constantFrom<string | null>(
      '*/*',
      'application/json',
      'application/problem+json',
      'text/html',
      'image/svg+xml',
      'text/csv',
      'application/*',
      'application/json;q=0',
    ),
  },
  { weight: 1, arbitrary: headerText(30) },
);

const idempotencyChoice = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('shared' as const), index: fc.nat() }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('fresh' as const), value: fc.uuid() }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      { kind: 'missing' as const },
      { kind: 'raw' as const, value: '' },
      { kind: 'raw' as const, value: ' padded ' },
      { kind: 'raw' as const, value: 'k'.repeat(256) },
    ),
  },
);

const authChoice = fc.oneof(
  { weight: 96, arbitrary: fc.record({ kind: fc.constant('key' as const), index: fc.nat() }) },
  { weight: 3, arbitrary: fc.constant({ kind: 'narrow' as const }) },
  // Few: failed authentications count against the whole suite's source address.
  { weight: 1, arbitrary: fc.constantFrom({ kind: 'none' as const }, { kind: 'garbage' as const }) },
);

const pathChoice = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('known' as const), index: fc.nat() }) },
  { weight: 2, arbitrary: fc.constant({ kind: 'placeholder' as const }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('junk' as const),
      value: fc.oneof(fc.string({ minLength: 1, maxLength: 30 }), fc.constantFrom('..', '%2F', '%00', 'bom_', 'x'.repeat(300))),
    }),
  },
);

/** The tags of the samples' codes and references (test/support/write-samples.ts): few, so requests meet each other's records. */
export const FUZZ_TAGS = ['A', 'B', 'C'] as const;

/** One generated request, as choices; `materialize` turns it into a request of the world. */
export const fuzzChoice = fc.record({
  lane: fc.nat(),
  routeIndex: fc.nat(ALL_ROUTES.length - 1),
  auth: authChoice,
  idempotency: idempotencyChoice,
  path: pathChoice,
  // Mostly none: an unknown parameter is a 400 before anything else is looked at.
  query: fc.oneof(
    { weight: 3, arbitrary: fc.constant({}) },
    {
      weight: 1,
      arbitrary: fc.dictionary(fc.constantFrom('limit', 'cursor', 'x', 'kind', 'status', 'sku', 'format', 'eventId'), junkValue, { minKeys: 1, maxKeys: 3 }),
    },
  ),
  addRouteQuery: fc.nat(3).map((draw) => draw === 0),
  body: bodyChoice,
  contentType: contentTypeChoice,
  accept: acceptChoice,
  ifMatch: fc.option(fc.oneof(headerText(40), fc.constantFrom('*', '"1"', 'W/"x"')), { freq: 5, nil: undefined }),
  tag: fc.constantFrom(...FUZZ_TAGS),
});

export type FuzzChoice = typeof fuzzChoice extends fc.Arbitrary<infer T> ? T : never;

const pick = <T>(list: readonly T[], index: number): T => {
  const value = list[index % list.length];
  if (value === undefined) throw new Error('pick from an empty list');
  return value;
};

function routeQueryNames(route: RouteDefinition): string[] {
  const { query } = operationEntry(route.operationId)?.contract.request ?? {};
  return Object.keys(query?._zod.def.shape ?? {});
}

export function materialize(world: FuzzWorld, choice: FuzzChoice): FuzzRequest {
  const laneIndex = choice.lane % world.lanes.length;
  const lane = pick(world.lanes, laneIndex);
  const route = pick(ALL_ROUTES, choice.routeIndex);
  const headers: Record<string, string> = {};
  if (choice.auth.kind === 'key') headers.authorization = `Bearer ${pick(lane.keys, choice.auth.index)}`;
  if (choice.auth.kind === 'narrow') headers.authorization = `Bearer ${lane.narrowKey}`;
  if (choice.auth.kind === 'garbage') headers.authorization = 'Bearer not-a-key';

  const id = choice.path.kind === 'known' ? pick(world.ids, choice.path.index) : choice.path.kind === 'junk' ? choice.path.value : undefined;
  const write = isWrite(route);
  const sample = write ? sampleWrite(route, 'replaced', { id, itemIds: lane.itemIds, tag: choice.tag }) : undefined;
  let path = sample?.path ?? concretePath(route, id);
  let body: string | Buffer | undefined;
  let builtType: string | undefined;
  if (choice.body.kind === 'sample' || choice.body.kind === 'mutated') {
    body = sample?.body;
    builtType = sample?.headers['content-type'];
    if (choice.body.kind === 'mutated' && typeof body === 'string') {
      body = JSON.stringify(choice.body.mutations.reduce<unknown>(mutate, JSON.parse(body)));
    }
  } else if (choice.body.kind === 'json') body = choice.body.value;
  else if (choice.body.kind === 'text') body = choice.body.value;
  else if (choice.body.kind === 'multipart') {
    const form = rawMultipart(choice.body.parts);
    body = choice.body.cut === undefined ? form.body : form.body.subarray(0, choice.body.cut);
    builtType = form.contentType;
  }
  if (body !== undefined && !builtType) builtType = 'application/json';
  const contentType = choice.contentType === 'as-built' ? builtType : choice.contentType;
  if (contentType) headers['content-type'] = contentType;
  if (choice.accept !== null) headers.accept = choice.accept;
  if (choice.ifMatch !== undefined) headers['if-match'] = choice.ifMatch;

  const idempotency = choice.idempotency;
  if (idempotency.kind === 'shared') headers['idempotency-key'] = pick(world.sharedIdempotencyKeys, idempotency.index);
  if (idempotency.kind === 'fresh') headers['idempotency-key'] = idempotency.value;
  if (idempotency.kind === 'raw') headers['idempotency-key'] = idempotency.value;

  const names = choice.addRouteQuery ? routeQueryNames(route) : [];
  const query = new URLSearchParams(choice.query);
  for (const name of names) if (!query.has(name)) query.set(name, pick(['1', 'items', 'csv', 'succeeded', 'A', ''], name.length));
  if ([...query.keys()].length > 0) path += `?${query.toString()}`;
  // A GET never has a body (fetch refuses one).
  return {
    lane: laneIndex,
    route: `${route.method} ${route.path}`,
    method: route.method,
    path,
    headers,
    ...(route.method === 'GET' || body === undefined ? {} : { body }),
  };
}
