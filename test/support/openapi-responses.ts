import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import chowChowModule from 'oas3-chow-chow';
import { createRouteMatcher } from '../../lib/platform/http/route-matching.ts';
import { ROUTES } from '../../lib/app/routes.ts';
import type { RouteDefinition } from '../../lib/platform/contracts/route-types.ts';
import { OPENAPI_DOCUMENT_PATH, REDOC_BUNDLE_PATH, REFERENCE_PAGE_PATH } from '../../lib/app/reference-page.ts';

/**
 * Checks that a response of the local server is one docs/openapi.json documents for the operation
 * that answered it: the status is listed, the media type is one of that status's `content` types
 * (and a body comes with a `Content-Type`), the documented headers match their schemas, and the
 * body matches the schema of its media type (a `text/plain` JSON body also as the JSON it holds).
 * Problem documents are checked against the problem `code`s the document lists for the status.
 *
 * The validator is oas3-chow-chow (Atlassian): unlike openapi-response-validator and
 * openapi-backend, which look only at the first or the `application/json` entry of `content`, it
 * picks the schema by the response's `Content-Type` and fails an undocumented one, it validates
 * response headers, and it fails a status the operation does not list. It compiles with Ajv's
 * default draft, which covers every keyword our generated schemas use (`contentSchema` is an
 * annotation, like in draft 2020-12). The operation is found with the server's own route matcher,
 * so the document is judged on exactly the route that answered.
 *
 * Requests no route claims (the `$default` 404 and 405) have no operation in the document: they
 * must be problem documents with the fallback's codes.
 */

// The package is CommonJS with `exports.default = ChowChow`: Node's loader gives the exports object,
// vitest's the class itself.
const loaded = chowChowModule as typeof chowChowModule | typeof chowChowModule.default;
const ChowChow = 'default' in loaded ? loaded.default : loaded;
type ChowChowInstance = InstanceType<typeof ChowChow>;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

/** OPENAPI_DOCUMENT_FILE checks the traffic against another document (e.g. an older one, to see what it missed). */
const DOCUMENT_FILE = process.env.OPENAPI_DOCUMENT_FILE ?? fileURLToPath(new URL('../../docs/openapi.json', import.meta.url));
const REFERENCE_PATHS = new Set([REFERENCE_PAGE_PATH, `${REFERENCE_PAGE_PATH}/`, OPENAPI_DOCUMENT_PATH, REDOC_BUNDLE_PATH]);
const FALLBACK_CODES: Record<number, string> = { 404: 'customer-api.route.not-found', 405: 'customer-api.request.method-not-allowed' };

export class UndocumentedResponseError extends Error {
  override name = 'UndocumentedResponseError';
}

let documentCache: JsonObject | undefined;
function openApiDocument(): JsonObject {
  documentCache ??= withSelfReferencesInlined(JSON.parse(readFileSync(DOCUMENT_FILE, 'utf8')) as JsonObject);
  return documentCache;
}

/**
 * Levels of a self-referencing schema written out for the validator: more than any response
 * nests (a lot trace's tree: 10 levels at most, docs/inventory.md "Tracing a lot").
 */
const SELF_REFERENCE_LEVELS = 12;

/**
 * chow-chow dereferences the whole document and refuses a circular `$ref`, so a component that
 * references itself (a tree's node) is written out `SELF_REFERENCE_LEVELS` deep, then left open.
 */
function withSelfReferencesInlined(document: JsonObject): JsonObject {
  const components = document.components as JsonObject | undefined;
  const schemas = components?.schemas as JsonObject | undefined;
  if (!components || !schemas) return document;
  const inlined: JsonObject = {};
  for (const [name, schema] of Object.entries(schemas)) {
    const ref = `#/components/schemas/${name}`;
    const expand = (value: Json, levels: number): Json => {
      if (Array.isArray(value)) return value.map((entry) => expand(entry, levels));
      if (value === null || typeof value !== 'object') return value;
      if (value.$ref === ref) return levels > 0 ? expand(schema, levels - 1) : {};
      return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, expand(entry, levels)]));
    };
    inlined[name] = JSON.stringify(schema).includes(`"${ref}"`) ? expand(schema, SELF_REFERENCE_LEVELS) : schema;
  }
  return { ...document, components: { ...components, schemas: inlined } };
}

const matchRoute = createRouteMatcher<RouteDefinition>(ROUTES);

/** One validator per operation, built on first use (compiling all of them costs seconds per test file). */
const validators = new Map<string, Promise<ChowChowInstance>>();
function validatorFor(route: RouteDefinition): Promise<ChowChowInstance> {
  let validator = validators.get(route.operationId);
  if (!validator) {
    const document = openApiDocument();
    const paths = document.paths as JsonObject;
    const operation = (paths[route.path] as JsonObject | undefined)?.[route.method.toLowerCase()];
    if (operation === undefined) throw new UndocumentedResponseError(`docs/openapi.json has no operation ${route.method} ${route.path} (${route.operationId})`);
    // Header values are strings on the wire: let `Retry-After: 3` pass as the integer it documents.
    validator = ChowChow.create(
      { ...document, paths: { [route.path]: { [route.method.toLowerCase()]: operation } } },
      { headerAjvOptions: { coerceTypes: true } },
    );
    validators.set(route.operationId, validator);
  }
  return validator;
}

let problemValidator: (((value: unknown) => boolean) & { errors?: unknown }) | undefined;
function validateProblem(body: unknown): unknown {
  if (!problemValidator) {
    const schemas = (openApiDocument().components as JsonObject).schemas as JsonObject;
    problemValidator = new Ajv2020({ strict: false }).compile(schemas.ProblemDetails as object);
  }
  return problemValidator(body) ? undefined : problemValidator.errors;
}

function mediaTypeOf(contentType: string | null): string | undefined {
  const essence = contentType?.split(';')[0]?.trim().toLowerCase();
  return essence === '' ? undefined : essence;
}

function isJsonMediaType(mediaType: string): boolean {
  return mediaType === 'application/json' || mediaType === 'text/json' || /^application\/[^/]+\+json$/.test(mediaType);
}

function parseJson(text: string, what: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new UndocumentedResponseError(`${what}: the body is not JSON: ${text.slice(0, 200)}`);
  }
}

function describeFailure(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const meta = (error as Error & { meta?: { in?: string; rawErrors?: unknown } }).meta;
  return meta ? `${error.message} (in ${meta.in ?? '?'}): ${JSON.stringify(meta.rawErrors ?? [])}` : error.message;
}

export interface ApiRequest {
  method: string;
  /** The full URL, or the path and query the request was sent to. */
  url: string;
}

/**
 * Throws UndocumentedResponseError when `response` is not what docs/openapi.json documents for the
 * request. Reads a clone: the caller's response stays unread.
 */
export async function assertDocumentedResponse(request: ApiRequest, response: Response): Promise<void> {
  const method = request.method.toUpperCase();
  const path = new URL(request.url, 'http://localhost').pathname;
  if (REFERENCE_PATHS.has(path) || method === 'HEAD' || method === 'OPTIONS') return;
  const what = `${method} ${path} → ${response.status}`;
  const text = await response.clone().text();
  const mediaType = mediaTypeOf(response.headers.get('content-type'));
  if (text.length > 0 && mediaType === undefined) throw new UndocumentedResponseError(`${what}: a body without a Content-Type header`);

  const outcome = matchRoute(method, path);
  if (outcome.kind !== 'matched') {
    const code = FALLBACK_CODES[response.status];
    if (code === undefined || mediaType !== 'application/problem+json') {
      throw new UndocumentedResponseError(
        `${what}: no operation of docs/openapi.json answers this request, and it is not the fallback's 404 or 405 problem (${mediaType ?? 'no body'})`,
      );
    }
    const problem = parseJson(text, what);
    const errors = validateProblem(problem);
    if (errors) throw new UndocumentedResponseError(`${what}: not a ProblemDetails document: ${JSON.stringify(errors)}`);
    if ((problem as { code?: unknown }).code !== code)
      throw new UndocumentedResponseError(`${what}: the fallback answers with code ${code}, not ${JSON.stringify((problem as { code?: unknown }).code)}`);
    return;
  }

  const { route } = outcome.match;
  const validator = await validatorFor(route);
  const declared = ((((openApiDocument().paths as JsonObject)[route.path] as JsonObject)[route.method.toLowerCase()] as JsonObject).responses as JsonObject)[
    String(response.status)
  ];
  const header = Object.fromEntries(response.headers);
  const validate = (contentType: string | undefined, body: unknown) => {
    try {
      validator.validateResponseByOperationId(route.operationId, {
        status: response.status,
        header: contentType === undefined ? header : { ...header, 'content-type': contentType },
        body,
      });
    } catch (error) {
      throw new UndocumentedResponseError(`${what} (${route.operationId}, ${contentType ?? 'no content'}): ${describeFailure(error)}`);
    }
  };

  if (mediaType === undefined) {
    if (declared !== undefined && hasContent(declared))
      throw new UndocumentedResponseError(`${what} (${route.operationId}): documented with a body, answered without one`);
    validate(undefined, undefined);
    return;
  }
  if (isJsonMediaType(mediaType)) {
    validate(mediaType, parseJson(text, what));
  } else if (mediaType === 'text/plain') {
    // Documented as a string holding JSON (contentSchema): check the string, then the JSON in it.
    validate(mediaType, text);
    validate('application/json', parseJson(text, what));
  } else {
    validate(mediaType, text);
  }
}

function hasContent(response: Json): boolean {
  if (typeof response !== 'object' || response === null || Array.isArray(response)) return false;
  if (typeof response.$ref === 'string') {
    const name = response.$ref.split('/').pop() ?? '';
    return hasContent(((openApiDocument().components as JsonObject).responses as JsonObject)[name] ?? null);
  }
  return typeof response.content === 'object' && response.content !== null && Object.keys(response.content).length > 0;
}
