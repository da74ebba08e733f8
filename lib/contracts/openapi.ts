import * as z from './zod.ts';
import type { HttpMethod, RouteDefinition } from '../routes.ts';
import { bindOperation, type RouteOperation } from './operation.ts';
import { routeOperations } from './operations.ts';
import { booleanString, dateTimeString, doubleString, int32String } from './primitives.ts';
import { routeProblemCodes } from './problem-codes.ts';
import { problemSchema } from './problem.ts';

/**
 * OpenAPI 3.1 description of the customer API, derived from the route table (`lib/routes.ts`)
 * and each route's operation contract (lib/contracts/operations.ts). `scripts/generate-openapi.ts` writes it to `docs/openapi.json`; the
 * contract test fails when the committed file drifts from `buildOpenApiDocument()`.
 *
 * Schemas come from zod 4's `z.toJSONSchema` (draft 2020-12, the dialect of OpenAPI 3.1).
 * Schemas registered with `.meta({ id })` land in `components.schemas` and are `$ref`ed.
 *
 * Query, path and form values are strings on the wire that the contracts parse into numbers
 * and booleans (see `primitives.ts`). Their input JSON schema is therefore "a string with a
 * pattern", which hides what the value means, and their output JSON schema loses everything
 * that sits behind a `.transform()`. Each such value is documented as follows:
 *   1. Convert it twice: `io: 'input'` (the wire string) and `io: 'output'` (the parsed value).
 *   2. If the output is a number, integer or boolean (a piped schema such as
 *      `int32String.pipe(z.number().min(1).max(200))`), document the output: the real type and
 *      its bounds. Otherwise document the input (plain strings, enums, ids, date-times).
 *   3. If the value is built from one of the wire primitives of `primitives.ts` (found by
 *      identity, unwrapping optional/default/nullable/pipe-input wrappers), the primitive fixes
 *      the type and format: int32 → `integer`/`int32`, double → `number`/`double`, boolean →
 *      `boolean`, even when step 2 saw nothing behind the transform. The spelling rule
 *      for the string form (docs/api-guide.md "Query parameters") goes into the parameter description.
 *   4. `default` comes from the output schema (zod omits it from input schemas).
 * So `limitParam` becomes `{ type: integer, format: int32, minimum: 1, maximum: 200, default: 50 }`.
 * No contract carries OpenAPI-only hints; everything is read from the schemas as they are.
 */

// ---------------------------------------------------------------------------------------------
// JSON helpers

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export type OpenApiDocument = JsonObject;

function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Deep copy of a JSON value, without `$schema` keys and with `#/$defs/` refs pointed at components. */
function normalizeJson(value: unknown): JsonValue {
  if (Array.isArray(value)) return value.map((item) => normalizeJson(item));
  if (isJsonObject(value)) {
    const result: JsonObject = {};
    for (const [key, child] of Object.entries(value)) {
      if (key === '$schema') continue;
      if (key === '$ref' && typeof child === 'string' && child.startsWith('#/$defs/')) {
        result[key] = `#/components/schemas/${child.slice('#/$defs/'.length)}`;
        continue;
      }
      result[key] = normalizeJson(child);
    }
    return result;
  }
  if (value === undefined) return null;
  return value as JsonValue;
}

/** Keywords first in a readable order; anything else keeps zod's order after them. */
const KEYWORD_ORDER = [
  '$ref',
  'title',
  'description',
  'type',
  'format',
  'contentEncoding',
  'contentMediaType',
  'const',
  'enum',
  'pattern',
  'minLength',
  'maxLength',
  'minimum',
  'exclusiveMinimum',
  'maximum',
  'exclusiveMaximum',
  'multipleOf',
  'items',
  'minItems',
  'maxItems',
  'properties',
  'required',
  'additionalProperties',
  'default',
  'examples',
];

function orderKeywords(schema: JsonObject): JsonObject {
  const ordered: JsonObject = {};
  for (const key of KEYWORD_ORDER) {
    const value = schema[key];
    if (value !== undefined) ordered[key] = value;
  }
  for (const [key, value] of Object.entries(schema)) {
    if (!(key in ordered)) ordered[key] = value;
  }
  return ordered;
}

// ---------------------------------------------------------------------------------------------
// zod → JSON Schema

type Io = 'input' | 'output';
type Schema = z.core.$ZodType;

function rawJsonSchema(schema: Schema, io: Io): JsonObject {
  const json = normalizeJson(z.toJSONSchema(schema, { io, target: 'draft-2020-12', unrepresentable: 'any' }));
  if (!isJsonObject(json)) throw new Error('z.toJSONSchema returned a non-object');
  return json;
}

/** Collects the `$defs` of every conversion into `components.schemas`. */
class SchemaComponents {
  private readonly schemas = new Map<string, { json: JsonValue; io: Io }>();

  /** JSON schema of `schema` with its registered (`.meta({ id })`) parts moved into components. */
  convert(schema: Schema, io: Io): JsonObject {
    const json = rawJsonSchema(schema, io);
    const defs = json.$defs;
    delete json.$defs;
    if (defs === undefined) return json;
    if (!isJsonObject(defs)) throw new Error('Unexpected $defs in a zod JSON schema');
    const renames = new Map<string, string>();
    for (const [id, def] of Object.entries(defs)) {
      if (id.startsWith('__')) {
        throw new Error(`A recursive or reused schema without an id ('${id}') cannot become an OpenAPI component; give it .meta({ id })`);
      }
      renames.set(id, this.register(id, def, io));
    }
    return renameRefs(json, renames) as JsonObject;
  }

  /** Registers a component; an input view that differs from the output view gets an `Input` suffix. */
  private register(id: string, def: JsonValue, io: Io): string {
    const existing = this.schemas.get(id);
    if (existing === undefined) {
      this.schemas.set(id, { json: def, io });
      return id;
    }
    if (JSON.stringify(existing.json) === JSON.stringify(def)) return id;
    if (io === 'input' && existing.io === 'output') return this.register(`${id}Input`, def, io);
    if (io === 'output' && existing.io === 'input') {
      // The input view came first: move it aside so the plain id means the response shape.
      this.schemas.delete(id);
      this.schemas.set(`${id}Input`, existing);
      this.schemas.set(id, { json: def, io });
      return id;
    }
    throw new Error(`Two different schemas are registered with the id '${id}'`);
  }

  toJson(): JsonObject {
    const result: JsonObject = {};
    for (const id of [...this.schemas.keys()].sort()) {
      const entry = this.schemas.get(id);
      if (entry) result[id] = entry.json;
    }
    return result;
  }
}

function renameRefs(value: JsonValue, renames: Map<string, string>): JsonValue {
  if (Array.isArray(value)) return value.map((item) => renameRefs(item, renames));
  if (!isJsonObject(value)) return value;
  const result: JsonObject = {};
  for (const [key, child] of Object.entries(value)) {
    if (key === '$ref' && typeof child === 'string' && child.startsWith('#/components/schemas/')) {
      const id = child.slice('#/components/schemas/'.length);
      result[key] = `#/components/schemas/${renames.get(id) ?? id}`;
    } else {
      result[key] = renameRefs(child, renames);
    }
  }
  return result;
}

// ---------------------------------------------------------------------------------------------
// Wire values (query, path, form)

type WireKind = 'int32' | 'double' | 'boolean' | 'date-time';

const WIRE_PRIMITIVES: ReadonlyArray<readonly [Schema, WireKind]> = [
  [int32String, 'int32'],
  [doubleString, 'double'],
  [booleanString, 'boolean'],
  [dateTimeString, 'date-time'],
];

const WIRE_NOTES: Record<WireKind, string> = {
  int32: 'Sent as decimal digits with an optional leading minus and no leading zeros (`-?(0|[1-9][0-9]*)`).',
  double: 'Sent as a decimal such as `12` or `12.5`: no exponent, sign only in front, no leading zeros.',
  boolean: 'Sent as `true` or `false`.',
  'date-time': 'ISO 8601 date-time with a time zone, e.g. `2026-01-31T12:00:00Z`.',
};

const WRAPPER_TYPES = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'catch', 'nonoptional']);

/** The schema one step further towards the wire: the inner type of a wrapper, the input of a pipe. */
function towardsWire(schema: Schema): Schema | undefined {
  const def = schema._zod.def;
  if (WRAPPER_TYPES.has(def.type)) return (def as z.core.$ZodOptionalDef).innerType;
  if (def.type === 'pipe') return (def as z.core.$ZodPipeDef).in;
  return undefined;
}

function wireKind(schema: Schema): WireKind | undefined {
  let current: Schema | undefined = schema;
  for (let depth = 0; current !== undefined && depth < 64; depth += 1) {
    const candidate: Schema = current;
    const hit = WIRE_PRIMITIVES.find(([primitive]) => primitive === candidate);
    if (hit) return hit[1];
    current = towardsWire(candidate);
  }
  return undefined;
}

const INT32_MIN = -2_147_483_648;
const INT32_MAX = 2_147_483_647;
const PARSED_TYPES = new Set(['integer', 'number', 'boolean']);
const ANNOTATIONS = ['title', 'description', 'default', 'examples', 'deprecated'];

/** JSON schema of one query/path/form value; `note` is the wire spelling rule, if any. */
function wireValueSchema(schema: Schema, components: SchemaComponents): { schema: JsonObject; note?: string } {
  const kind = wireKind(schema);
  // Look at the output view first without registering components; convert for real only the view used.
  const rawOutput = rawJsonSchema(schema, 'output');
  const outputIsParsed = typeof rawOutput.type === 'string' && PARSED_TYPES.has(rawOutput.type);
  const forcedType = kind === 'int32' ? 'integer' : kind === 'double' ? 'number' : kind === 'boolean' ? 'boolean' : undefined;

  let result: JsonObject;
  if (outputIsParsed || forcedType !== undefined) {
    const output = outputIsParsed ? components.convert(schema, 'output') : rawOutput;
    if (outputIsParsed) {
      result = { ...output };
    } else {
      result = {};
      for (const key of ANNOTATIONS) {
        const value = output[key];
        if (value !== undefined) result[key] = value;
      }
    }
    if (forcedType !== undefined) result.type = forcedType;
    if (kind === 'int32') {
      result.format = 'int32';
      // Zod writes the safe-integer range for `.int()`; int32 is narrower and implied by the format.
      if (typeof result.minimum === 'number' && result.minimum <= INT32_MIN) delete result.minimum;
      if (typeof result.maximum === 'number' && result.maximum >= INT32_MAX) delete result.maximum;
    }
    if (kind === 'double') result.format = 'double';
  } else {
    result = { ...components.convert(schema, 'input') };
    if (result.default === undefined && rawOutput.default !== undefined) result.default = rawOutput.default;
  }
  const note = kind === undefined ? undefined : WIRE_NOTES[kind];
  return note === undefined ? { schema: orderKeywords(result) } : { schema: orderKeywords(result), note };
}

function objectShape(schema: Schema, what: string): Record<string, Schema> {
  const def = schema._zod.def;
  if (def.type !== 'object') throw new Error(`${what} must be a zod object`);
  return (def as z.core.$ZodObjectDef).shape;
}

/** Property names a client must send: neither optional nor defaulted (zod's input view). */
function requiredInputKeys(schema: Schema): Set<string> {
  const required = rawJsonSchema(schema, 'input').required;
  return new Set(Array.isArray(required) ? required.filter((key): key is string => typeof key === 'string') : []);
}

function joinText(...parts: Array<string | undefined>): string | undefined {
  const present = parts.filter((part): part is string => part !== undefined && part !== '');
  return present.length === 0 ? undefined : present.join(' ');
}

function parametersFrom(schema: Schema, location: 'query' | 'path' | 'header', route: RouteDefinition, components: SchemaComponents): JsonObject[] {
  const shape = objectShape(schema, `${route.operationId}: request.${location === 'header' ? 'headers' : location}`);
  const required = requiredInputKeys(schema);
  return Object.entries(shape).map(([name, property]) => {
    const { schema: valueSchema, note } = wireValueSchema(property, components);
    const ownDescription = typeof valueSchema.description === 'string' ? valueSchema.description : undefined;
    delete valueSchema.description;
    const description = joinText(ownDescription, note);
    const isRequired = location === 'path' || required.has(name);
    const parameter: JsonObject = { name, in: location };
    if (description !== undefined) parameter.description = description;
    parameter.required = isRequired;
    parameter.schema = valueSchema;
    return parameter;
  });
}

function pathTemplateNames(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] ?? '');
}

// ---------------------------------------------------------------------------------------------
// Shared pieces

const IDEMPOTENT_METHODS: ReadonlySet<HttpMethod> = new Set(['POST', 'PUT', 'DELETE']);

export function isWriteRoute(route: Pick<RouteDefinition, 'method'>): boolean {
  return IDEMPOTENT_METHODS.has(route.method);
}

const JSON_RESPONSE_MEDIA_TYPES = ['application/json', 'text/json', 'text/plain'];
const JSON_REQUEST_MEDIA_TYPES = ['application/json', 'text/json', 'application/*+json'];
const PROBLEM_MEDIA_TYPE = 'application/problem+json';
const PROBLEM_REF = '#/components/schemas/ProblemDetails';

/** Statuses every operation can answer with, whatever its route says (the shared chain's). */
export const CHAIN_ERROR_STATUSES = [401, 403, 406, 429, 500] as const;

const ERROR_RESPONSES: Record<number, { name: string; description: string }> = {
  400: {
    name: 'BadRequest',
    description:
      'A query, path, header, form or body value is invalid (`customer-api.validation.failed` and the more specific 400 codes); validation problems list every invalid value in `errors`.',
  },
  401: {
    name: 'Unauthorized',
    description: 'The API key is missing, malformed, unknown, revoked or expired (`customer-api.auth.unauthenticated`).',
  },
  403: {
    name: 'Forbidden',
    description: 'The API key lacks the scope the operation requires (`customer-api.auth.insufficient-scope`); `requiredScope` names it.',
  },
  404: {
    name: 'NotFound',
    description: 'The resource does not exist or belongs to another organization (`customer-api.<area>.not-found`).',
  },
  405: { name: 'MethodNotAllowed', description: 'The path does not support this method (`customer-api.request.method-not-allowed`).' },
  406: {
    name: 'NotAcceptable',
    description: 'None of the media types the operation offers is acceptable per `Accept` (`customer-api.request.not-acceptable`).',
  },
  409: {
    name: 'Conflict',
    description:
      'The request conflicts with the current state, or its `Idempotency-Key` was used for a different request (`customer-api.idempotency.key-reused`) or is still in progress (`customer-api.idempotency.in-progress`).',
  },
  413: { name: 'PayloadTooLarge', description: 'The request body is too large (`customer-api.request.too-large`).' },
  415: {
    name: 'UnsupportedMediaType',
    description: 'The request body has a media type the operation does not accept (`customer-api.request.unsupported-media-type`).',
  },
  429: {
    name: 'TooManyRequests',
    description: 'A rate limit of the API key is exhausted (`customer-api.rate-limit.exceeded`); retry after `Retry-After` seconds.',
  },
  500: { name: 'InternalServerError', description: 'An unexpected error (`customer-api.internal`); `detail` is generic.' },
};

/** What a route's own error status means; its problem codes follow in the response description. */
const ROUTE_STATUS_TEXT: Record<number, string> = {
  400: 'A query, path, header, form or body value is invalid; a validation problem (`customer-api.validation.failed`) lists every invalid value in `errors`.',
  404: 'The resource does not exist or belongs to another organization.',
  409: 'The request conflicts with the current state, or its `Idempotency-Key` was used for a different request or is still in progress.',
  413: 'The request body is too large.',
  415: 'The request body has a media type the operation does not accept.',
};

function errorInfo(status: number): { name: string; description: string } {
  return ERROR_RESPONSES[status] ?? { name: `Status${status}`, description: `Problem with status ${status}.` };
}

const HEADER_COMPONENTS: Record<string, JsonObject> = {
  RateLimit: {
    description: 'Remaining quota of the API key in the current 60-second window (IETF draft RateLimit header fields).',
    schema: { type: 'string' },
  },
  'RateLimit-Policy': {
    description: 'The quota policies applied to the API key (IETF draft RateLimit header fields).',
    schema: { type: 'string' },
  },
  'Retry-After': {
    description: 'Whole seconds to wait before retrying.',
    schema: { type: 'integer', minimum: 1 },
  },
  'WWW-Authenticate': {
    description: 'Always `Bearer`.',
    schema: { type: 'string' },
  },
  'Idempotent-Replayed': {
    description: '`true` when this response is the stored response of an earlier request with the same `Idempotency-Key`.',
    schema: { type: 'string', enum: ['true'] },
  },
};

const TAG_DESCRIPTIONS: Record<string, string> = {
  Imports: 'List import kinds, submit file import jobs, poll jobs and read their row errors.',
  Attachments: 'List, upload, link and delete attachments, and obtain download URLs.',
  Audit: 'Read the audit trail of the organization.',
  Labels: 'Render barcodes as SVG images.',
  Boms: 'Bills of materials: list, create, read and update BOMs; builds; revisions and their comparison.',
  Inventory: 'Inventory reads: items, locations, stock records and movements by id and by filter (docs/inventory.md "Reading inventory").',
  BOMs: 'Bills of materials: list, create, read and update BOMs; builds; revisions and their comparison.',
  Events: 'Pull feed of domain change events (the catalog webhooks push).',
};

const API_DESCRIPTION = [
  'Tenant-scoped customer API of the inventory and warehouse service. All paths are under `/v1`.',
  '',
  '**Authentication.** Send a customer API key as `Authorization: Bearer <API_KEY>`. Every operation requires one scope, named in its description and in `x-required-scope`; a missing or invalid key is answered with 401, a key without the scope with 403.',
  '',
  '**Idempotency.** Every write (`POST`, `PUT`, `DELETE`) requires an `Idempotency-Key` header (1..255 characters). Retrying with the same key returns the first response (with `Idempotent-Replayed: true`); the same key with a different request is a 409.',
  '',
  '**Errors.** Errors are RFC 9457 problem documents (`application/problem+json`) with a stable `code` (`customer-api.<area>.<condition>`) and a `traceId`.',
  '',
  '**Rate limits.** Per API key in fixed 60-second windows (general, plus a submission limit for submission endpoints). Every response carries `RateLimit` and `RateLimit-Policy`; a 429 carries `Retry-After`.',
  '',
  '**Media types.** JSON responses are offered as `application/json` (default), `text/json` and `text/plain`: the same JSON text under each (documented for `text/plain` as a string whose content is that JSON). JSON request bodies are accepted as `application/json`, `text/json` and `application/*+json`.',
].join('\n');

const METHOD_ORDER: readonly HttpMethod[] = ['GET', 'PUT', 'POST', 'DELETE'];

// ---------------------------------------------------------------------------------------------
// curl examples (`x-codeSamples`, shown by the reference page: docs/api-guide.md#api-reference)

/** A value for an example request: the default, the first enum value, the minimum, or a word. */
function exampleValue(schema: JsonValue | undefined): string {
  if (!isJsonObject(schema)) return 'example';
  if (schema.default !== undefined && schema.default !== null) return String(schema.default);
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return String(schema.enum[0]);
  if (schema.const !== undefined && schema.const !== null) return String(schema.const);
  if (schema.type === 'integer' || schema.type === 'number') return String(typeof schema.minimum === 'number' ? schema.minimum : 1);
  if (schema.type === 'boolean') return 'true';
  return 'example';
}

/** `$NAME` for a path parameter: `revisionId` → `$REVISION_ID`. */
function shellVariable(name: string): string {
  return `$${name.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/[^A-Za-z0-9_]/g, '_').toUpperCase()}`;
}

/**
 * One curl command per operation: the base URL and key from `$BASE_URL` and `$API_KEY`, path
 * parameters as shell variables, required query values as examples, `Idempotency-Key` on writes,
 * a JSON body from `body.json` and multipart fields with example values.
 */
function curlExample(route: RouteDefinition, parameters: readonly JsonObject[], requestBody: JsonValue | undefined): string {
  const path = route.path.replace(/\{([^}]+)\}/g, (_match, name: string) => shellVariable(name));
  const query = parameters
    .filter((parameter) => parameter.in === 'query' && parameter.required === true)
    .map((parameter) => `${encodeURIComponent(String(parameter.name))}=${encodeURIComponent(exampleValue(parameter.schema))}`);
  const url = `$BASE_URL${path}${query.length > 0 ? `?${query.join('&')}` : ''}`;
  const lines = [`curl${route.method === 'GET' ? '' : ` -X ${route.method}`} "${url}"`, '-H "Authorization: Bearer $API_KEY"'];
  if (route.success.mediaType === 'image/svg+xml') lines.push(`-o ${route.operationId}.svg`);
  if (isWriteRoute(route)) lines.push('-H "Idempotency-Key: $(uuidgen)"');
  if (route.requestBody?.mediaType === 'json') {
    lines.push('-H "Content-Type: application/json"', '--data @body.json');
  } else if (route.requestBody?.mediaType === 'multipart' && isJsonObject(requestBody) && isJsonObject(requestBody.content)) {
    const form = requestBody.content['multipart/form-data'];
    const schema = isJsonObject(form) && isJsonObject(form.schema) ? form.schema : {};
    const properties = isJsonObject(schema.properties) ? schema.properties : {};
    const required = Array.isArray(schema.required) ? schema.required.map(String) : [];
    for (const name of required) {
      const property = properties[name];
      const isFile = isJsonObject(property) && (property.format === 'binary' || property.contentMediaType !== undefined);
      lines.push(isFile ? `-F "${name}=@path/to/file"` : `-F "${name}=${exampleValue(property)}"`);
    }
  }
  return lines.join(' \\\n  ');
}

// ---------------------------------------------------------------------------------------------
// Document

class DocumentBuilder {
  readonly schemas = new SchemaComponents();
  readonly responseComponents = new Map<number, JsonObject>();
  readonly headerComponents = new Set<string>();

  headerRef(name: string): JsonObject {
    if (HEADER_COMPONENTS[name] === undefined) throw new Error(`No header component '${name}'`);
    this.headerComponents.add(name);
    return { $ref: `#/components/headers/${name}` };
  }

  rateLimitHeaders(): JsonObject {
    return { RateLimit: this.headerRef('RateLimit'), 'RateLimit-Policy': this.headerRef('RateLimit-Policy') };
  }

  problemResponse(status: number, extraMediaTypes: readonly string[] = []): JsonObject {
    const headers = this.rateLimitHeaders();
    if (status === 401) headers['WWW-Authenticate'] = this.headerRef('WWW-Authenticate');
    if (status === 429) headers['Retry-After'] = this.headerRef('Retry-After');
    const content: JsonObject = { [PROBLEM_MEDIA_TYPE]: { schema: { $ref: PROBLEM_REF } } };
    for (const mediaType of extraMediaTypes) {
      if (mediaType in content) continue;
      content[mediaType] = /[/+]json$/.test(mediaType)
        ? { schema: { $ref: PROBLEM_REF } }
        : { schema: { type: 'string', description: `The problem rendered as ${mediaType}.` } };
    }
    return { description: errorInfo(status).description, headers, content };
  }

  /**
   * A route's own error status: the status text, then the problem `code`s the operation answers
   * with, listed in the description and pinned in the schema (so a validator rejects any other).
   */
  operationProblemResponse(status: number, codes: readonly string[], extraMediaTypes: readonly string[]): JsonObject {
    const response = this.problemResponse(status, extraMediaTypes);
    if (codes.length === 0) return response;
    const text = ROUTE_STATUS_TEXT[status] ?? errorInfo(status).description;
    response.description = [text, '', 'Problem `code`s:', ...codes.map((code) => `- \`${code}\``)].join('\n');
    const content = response.content as JsonObject;
    for (const [mediaType, media] of Object.entries(content)) {
      if (!/[/+]json$/.test(mediaType)) continue;
      content[mediaType] = { ...(media as JsonObject), schema: { allOf: [{ $ref: PROBLEM_REF }, { type: 'object', properties: { code: { enum: [...codes] } } }] } };
    }
    return response;
  }

  sharedErrorRef(status: number): JsonObject {
    if (!this.responseComponents.has(status)) this.responseComponents.set(status, this.problemResponse(status));
    return { $ref: `#/components/responses/${errorInfo(status).name}` };
  }

  operation(routeOperation: RouteOperation): JsonObject {
    const { route, contract } = routeOperation;
    const write = isWriteRoute(route);
    const operation: JsonObject = {
      tags: [route.tag],
      summary: route.summary,
      description: this.operationDescription(route),
      operationId: route.operationId,
      'x-required-scope': route.scope,
      // OpenAPI 3.1 lets any scheme list the roles it requires: the scope shows with the scheme.
      security: [{ customerApiKey: [route.scope] }],
    };

    const parameters = this.parameters({ route, contract }, write);
    if (parameters.length > 0) operation.parameters = parameters;

    const body = route.requestBody;
    const bodySchema = contract.request.body;
    if (body !== undefined && bodySchema !== undefined) {
      const mediaTypes = body.mediaType === 'json' ? JSON_REQUEST_MEDIA_TYPES : ['multipart/form-data'];
      const schema = body.mediaType === 'json' ? this.schemas.convert(bodySchema, 'input') : this.formSchema(bodySchema, route);
      const content: JsonObject = {};
      for (const mediaType of mediaTypes) content[mediaType] = { schema };
      operation.requestBody = { required: true, content };
    }

    operation.responses = this.responses(routeOperation, write);
    operation['x-codeSamples'] = [{ lang: 'Shell', label: 'curl', source: curlExample(route, parameters, operation.requestBody) }];
    return operation;
  }

  private operationDescription(route: RouteDefinition): string {
    const lines = [`${route.summary}.`, '', `Requires scope \`${route.scope}\`.`];
    if (isWriteRoute(route)) {
      lines.push('', 'Requires the `Idempotency-Key` header; a retry with the same key returns the first response.');
    }
    if (route.submission) {
      lines.push('', 'Counts against the submission rate limit as well as the general one.');
    }
    return lines.join('\n');
  }

  private parameters({ route, contract }: RouteOperation, write: boolean): JsonObject[] {
    const { request } = contract;
    const templateNames = pathTemplateNames(route.path);
    const pathParameters = request.path ? parametersFrom(request.path, 'path', route, this.schemas) : [];
    // Path parameters in template order (bindOperation checked they are the template's).
    pathParameters.sort((a, b) => templateNames.indexOf(String(a.name)) - templateNames.indexOf(String(b.name)));

    const parameters = [...pathParameters];
    if (request.query) parameters.push(...parametersFrom(request.query, 'query', route, this.schemas));
    if (request.headers) parameters.push(...parametersFrom(request.headers, 'header', route, this.schemas));
    if (route.success.mediaType === 'image/svg+xml' && !parameters.some((parameter) => String(parameter.name).toLowerCase() === 'if-none-match')) {
      parameters.push({
        name: 'If-None-Match',
        in: 'header',
        description: 'The `ETag` of an image already held (or `*`); when it matches, the answer is 304 without a body.',
        required: false,
        schema: { type: 'string' },
      });
    }
    if (write) {
      parameters.push({
        name: 'Idempotency-Key',
        in: 'header',
        description:
          'Client-chosen key (1..255 characters, no control characters) that makes retries of this write safe for 24 hours. Reusing it for a different request is a 409.',
        required: true,
        schema: { type: 'string', minLength: 1, maxLength: 255 },
      });
    }
    return parameters;
  }

  /** multipart/form-data fields are strings on the wire, like query values; files stay as zod writes them. */
  private formSchema(schema: Schema, route: RouteDefinition): JsonObject {
    if (schema._zod.def.type !== 'object') return this.schemas.convert(schema, 'input');
    const shape = objectShape(schema, `${route.operationId}: request.body`);
    const required = requiredInputKeys(schema);
    const properties: JsonObject = {};
    for (const [name, property] of Object.entries(shape)) {
      const { schema: valueSchema, note } = wireValueSchema(property, this.schemas);
      const description = joinText(typeof valueSchema.description === 'string' ? valueSchema.description : undefined, note);
      if (description !== undefined) valueSchema.description = description;
      properties[name] = orderKeywords(valueSchema);
    }
    const result: JsonObject = { type: 'object', properties };
    const requiredNames = Object.keys(shape).filter((name) => required.has(name));
    if (requiredNames.length > 0) result.required = requiredNames;
    return result;
  }

  private responses({ route, response }: RouteOperation, write: boolean): JsonObject {
    const responses: JsonObject = {};
    const success = route.success;

    const headers: JsonObject = {};
    for (const [name, description] of Object.entries(success.headers ?? {})) {
      headers[name] = { description, schema: { type: 'string' } };
    }
    Object.assign(headers, this.rateLimitHeaders());
    if (write) headers['Idempotent-Replayed'] = this.headerRef('Idempotent-Replayed');

    const successResponse: JsonObject = { description: success.description, headers };
    const mediaType = success.mediaType ?? (response ? 'json' : 'none');
    if (success.status !== 204 && mediaType !== 'none') {
      const content: JsonObject = {};
      if (mediaType === 'image/svg+xml') {
        content['image/svg+xml'] = { schema: { type: 'string' } };
      } else {
        const schema = response ? this.schemas.convert(response, 'output') : undefined;
        for (const type of JSON_RESPONSE_MEDIA_TYPES) {
          if (type === 'text/plain') {
            // The same JSON text, labelled text/plain: on the wire it is a string (a validator reads it as one).
            content[type] = { schema: { type: 'string', contentMediaType: 'application/json', ...(schema ? { contentSchema: schema } : {}) } };
          } else {
            content[type] = schema ? { schema } : {};
          }
        }
      }
      successResponse.content = content;
    }
    responses[String(success.status)] = successResponse;

    if (mediaType === 'image/svg+xml') {
      // Conditional GET: the image's own validators come back, no body.
      const notModifiedHeaders: JsonObject = {};
      for (const [name, description] of Object.entries(success.headers ?? {})) notModifiedHeaders[name] = { description, schema: { type: 'string' } };
      Object.assign(notModifiedHeaders, this.rateLimitHeaders());
      responses['304'] = { description: '`If-None-Match` matches the image: the client\'s copy is current. No body.', headers: notModifiedHeaders };
    }

    const routeCodes = routeProblemCodes(route);
    const statuses = [...new Set([...routeCodes.keys(), ...CHAIN_ERROR_STATUSES])].sort((a, b) => a - b);
    for (const status of statuses) {
      const extra = status === 400 ? (route.problemMediaTypes ?? []) : [];
      const codes = routeCodes.get(status);
      responses[String(status)] = codes === undefined ? this.sharedErrorRef(status) : this.operationProblemResponse(status, codes, extra);
    }
    return responses;
  }
}

/**
 * The OpenAPI 3.1 document of `operations` (by default every route of the table with its
 * contract); pure and deterministic (same operations → same JSON text).
 */
export function buildOpenApiDocument(operations: readonly RouteOperation[] = routeOperations()): OpenApiDocument {
  const builder = new DocumentBuilder();
  // ProblemDetails first, so the components hold the response shape under its plain id.
  builder.schemas.convert(problemSchema, 'output');

  const seenOperationIds = new Set<string>();
  const seenOperations = new Set<string>();
  const tagNames: string[] = [];
  const pathOrder: string[] = [];
  const byPath = new Map<string, RouteOperation[]>();
  for (const operation of operations) {
    const { route } = bindOperation(operation.route, operation.contract, operation.response);
    if (seenOperationIds.has(route.operationId)) throw new Error(`Duplicate operationId '${route.operationId}'`);
    seenOperationIds.add(route.operationId);
    const key = `${route.method} ${route.path}`;
    if (seenOperations.has(key)) throw new Error(`Duplicate route ${key}`);
    seenOperations.add(key);
    if (!tagNames.includes(route.tag)) tagNames.push(route.tag);
    if (!byPath.has(route.path)) {
      byPath.set(route.path, []);
      pathOrder.push(route.path);
    }
    byPath.get(route.path)?.push(operation);
  }

  const paths: JsonObject = {};
  for (const path of pathOrder) {
    const item: JsonObject = {};
    const pathOperations = [...(byPath.get(path) ?? [])].sort((a, b) => METHOD_ORDER.indexOf(a.route.method) - METHOD_ORDER.indexOf(b.route.method));
    for (const operation of pathOperations) item[operation.route.method.toLowerCase()] = builder.operation(operation);
    paths[path] = item;
  }

  const responses: JsonObject = {};
  for (const status of [...builder.responseComponents.keys()].sort((a, b) => a - b)) {
    const response = builder.responseComponents.get(status);
    if (response) responses[errorInfo(status).name] = response;
  }
  const headers: JsonObject = {};
  for (const name of Object.keys(HEADER_COMPONENTS)) {
    const header = HEADER_COMPONENTS[name];
    if (header && builder.headerComponents.has(name)) headers[name] = header;
  }

  return {
    openapi: '3.1.0',
    info: {
      title: 'Inventory and Warehouse Customer API',
      version: '1.0.0',
      description: API_DESCRIPTION,
    },
    servers: [
      {
        url: '{base_url}',
        description: 'Deployment base address (API Gateway stage URL, or the local server).',
        variables: { base_url: { default: 'http://127.0.0.1:3000', description: 'Base address of the deployment, without a trailing slash.' } },
      },
    ],
    tags: tagNames.map((name) => ({ name, description: TAG_DESCRIPTIONS[name] ?? `Operations of the ${name} area.` })),
    paths,
    components: {
      schemas: builder.schemas.toJson(),
      responses,
      headers,
      securitySchemes: {
        customerApiKey: {
          type: 'http',
          scheme: 'bearer',
          description: 'Customer API key sent as `Authorization: Bearer <API_KEY>`. Each key belongs to one organization and carries scopes.',
        },
      },
    },
  };
}

/** The document as committed: 2-space JSON with a trailing newline. */
export function serializeOpenApiDocument(document: OpenApiDocument = buildOpenApiDocument()): string {
  return `${JSON.stringify(document, null, 2)}\n`;
}
