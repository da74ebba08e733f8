import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { isWriteRoute } from '../../lib/app/openapi/conventions.ts';
import { buildOpenApiDocument, serializeOpenApiDocument } from '../../lib/app/openapi/document.ts';
import type { JsonObject, JsonValue } from '../../lib/platform/contracts/json.ts';
import { CHAIN_ERROR_STATUSES } from '../../lib/app/openapi/problem-responses.ts';
import type { OperationContract, RouteOperation } from '../../lib/platform/contracts/operation.ts';
import { routeOperations } from '../../lib/app/operations.ts';
import { booleanString, cursorParam, dateTimeString, idParam, int32String, limitParam } from '../../lib/platform/contracts/primitives.ts';
import { ROUTES } from '../../lib/app/routes.ts';
import type { RouteDefinition } from '../../lib/platform/contracts/route-types.ts';
import * as z from '../../lib/platform/contracts/zod.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const COMMITTED_PATH = join(ROOT, 'docs/openapi.json');
const routes = ROUTES as readonly RouteDefinition[];

function obj(value: JsonValue | undefined, what: string): JsonObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`${what} is not an object`);
  return value;
}

function operationOf(document: JsonObject, route: Pick<RouteDefinition, 'method' | 'path'>): JsonObject {
  const paths = obj(document.paths, 'paths');
  return obj(obj(paths[route.path], `paths['${route.path}']`)[route.method.toLowerCase()], `${route.method} ${route.path}`);
}

function parametersOf(operation: JsonObject): JsonObject[] {
  const parameters = operation.parameters ?? [];
  if (!Array.isArray(parameters)) throw new Error('parameters is not an array');
  return parameters.map((parameter, index) => obj(parameter, `parameters[${index}]`));
}

const base = {
  submission: false,
  handler: 'functions/http/synthetic.ts',
  access: { tables: {} },
} satisfies Partial<RouteDefinition>;

const syntheticDetail = z.object({ id: z.string(), name: z.string(), createdAt: z.string() }).check(z.meta({ id: 'SyntheticDetail' }));

/** A synthetic route with its contract (`request`) and, beside it, its `response`, as lib/app/operations.ts pairs them. */
function synthetic(definition: RouteDefinition & { request: OperationContract['request']; response?: RouteOperation['response'] }): RouteOperation {
  const { request, response, ...route } = definition;
  return { route, contract: { operationId: route.operationId, request }, ...(response ? { response } : {}) };
}

/** Write routes, list parameters and request headers the real table does not have yet. */
const SYNTHETIC_OPERATIONS: RouteOperation[] = [
  synthetic({
    ...base,
    operationId: 'listSynthetic',
    method: 'GET',
    path: '/v1/synthetic',
    scope: 'boms:read',
    summary: 'List synthetic records',
    tag: 'Synthetic',
    request: {
      query: z.strictObject({
        q: z.optional(z.string().check(z.maxLength(200))),
        includeArchived: z._default(z.optional(booleanString), false),
        fromUtc: z.optional(dateTimeString),
        cursor: cursorParam,
        limit: limitParam,
      }),
    },
    success: { status: 200, description: 'A page of records.', mediaType: 'json' },
    response: z.object({ data: z.array(syntheticDetail), page: z.object({ nextCursor: z.nullable(z.string()) }) }),
    errorStatuses: [400],
  }),
  synthetic({
    ...base,
    operationId: 'createSynthetic',
    method: 'POST',
    path: '/v1/synthetic',
    scope: 'boms:write',
    summary: 'Create a synthetic record',
    tag: 'Synthetic',
    requestBody: { mediaType: 'json' },
    request: { body: z.strictObject({ name: z.string().check(z.minLength(1)), quantity: z._default(z.number().check(z.positive()), 1) }) },
    success: { status: 201, description: 'The record.', mediaType: 'json' },
    response: syntheticDetail,
    errorStatuses: [400, 409],
  }),
  synthetic({
    ...base,
    operationId: 'replaceSynthetic',
    method: 'PUT',
    path: '/v1/synthetic/{id}',
    scope: 'boms:write',
    summary: 'Replace a synthetic record',
    tag: 'Synthetic',
    requestBody: { mediaType: 'json' },
    request: {
      path: z.strictObject({ id: idParam }),
      headers: z.strictObject({ 'If-Match': z.string().check(z.minLength(1)).check(z.describe('The ETag of the record as last read.')) }),
      body: z.strictObject({ name: z.string().check(z.minLength(1)) }),
    },
    success: { status: 200, description: 'The record.', mediaType: 'json' },
    response: syntheticDetail,
    errorStatuses: [400, 404, 409],
  }),
  synthetic({
    ...base,
    operationId: 'deleteSynthetic',
    method: 'DELETE',
    path: '/v1/synthetic/{id}',
    scope: 'boms:write',
    summary: 'Delete a synthetic record',
    tag: 'Synthetic',
    request: { path: z.strictObject({ id: idParam }) },
    success: { status: 204, description: 'Deleted.', mediaType: 'none' },
    errorStatuses: [404],
  }),
  synthetic({
    ...base,
    operationId: 'uploadSynthetic',
    method: 'POST',
    path: '/v1/synthetic/uploads',
    scope: 'imports:write',
    submission: true,
    summary: 'Upload a synthetic file',
    tag: 'Synthetic',
    requestBody: { mediaType: 'multipart', limits: { maxFileBytes: 1024, maxFiles: 1, maxFields: 4, maxFieldBytes: 256 } },
    request: { body: z.object({ kind: z.string().check(z.minLength(1)), PageCount: z.optional(int32String), file: z.file() }) },
    success: { status: 202, description: 'Queued.', mediaType: 'json', headers: { Location: 'Relative URL of the queued job.' } },
    response: syntheticDetail,
    errorStatuses: [400, 404, 409],
  }),
];

describe('docs/openapi.json', () => {
  it('equals buildOpenApiDocument() (drift)', () => {
    const committed: unknown = JSON.parse(readFileSync(COMMITTED_PATH, 'utf8'));
    expect(committed, 'docs/openapi.json is out of date: run `npm run openapi` and commit the result').toEqual(buildOpenApiDocument());
  });

  it('is serialized as 2-space JSON with a trailing newline', () => {
    expect(readFileSync(COMMITTED_PATH, 'utf8'), 'run `npm run openapi`').toBe(serializeOpenApiDocument());
  });
});

describe('buildOpenApiDocument', () => {
  const document = buildOpenApiDocument();

  it('is an OpenAPI 3.1.0 document of API version 1.0.0 with the customerApiKey bearer scheme', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(obj(document.info, 'info')).toMatchObject({ title: 'Inventory and Warehouse Customer API', version: '1.0.0' });
    expect(document.servers).toEqual([
      expect.objectContaining({ url: '{base_url}', variables: { base_url: expect.objectContaining({ default: 'http://127.0.0.1:3000' }) } }),
    ]);
    const components = obj(document.components, 'components');
    expect(obj(components.securitySchemes, 'securitySchemes').customerApiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('is deterministic, including key order', () => {
    expect(JSON.stringify(buildOpenApiDocument())).toBe(JSON.stringify(document));
    expect(JSON.stringify(buildOpenApiDocument(SYNTHETIC_OPERATIONS))).toBe(JSON.stringify(buildOpenApiDocument(SYNTHETIC_OPERATIONS)));
  });

  it.each(routes.map((route) => [`${route.method} ${route.path}`, route] as const))(
    'documents %s with its operationId, scope, tag and security',
    (_name, route) => {
      const operation = operationOf(document, route);
      expect(operation.operationId).toBe(route.operationId);
      expect(operation.summary).toBe(route.summary);
      expect(operation.tags).toEqual([route.tag]);
      expect(operation['x-required-scope']).toBe(route.scope);
      expect(operation.description).toContain(`\`${route.scope}\``);
      expect(operation.security).toEqual([{ customerApiKey: [route.scope] }]);
      expect(operation['x-codeSamples']).toEqual([{ lang: 'Shell', label: 'curl', source: expect.stringMatching(/^curl /) }]);
    },
  );

  it('has exactly the operations of the route table', () => {
    const operationIds = Object.values(obj(document.paths, 'paths')).flatMap((item) =>
      Object.values(obj(item, 'path item')).map((operation) => obj(operation, 'operation').operationId),
    );
    expect(operationIds.sort()).toEqual(routes.map((route) => route.operationId).sort());
  });

  it('documents the route error statuses plus 401, 403, 406, 429 and 500 as problem documents', () => {
    for (const route of routes) {
      const responses = obj(operationOf(document, route).responses, 'responses');
      for (const status of [...route.errorStatuses, ...CHAIN_ERROR_STATUSES]) {
        expect(responses, `${route.operationId} ${status}`).toHaveProperty(String(status));
      }
      for (const status of CHAIN_ERROR_STATUSES) {
        expect(obj(responses[String(status)], String(status)).$ref).toMatch(/^#\/components\/responses\/[A-Za-z]+$/);
      }
    }
    const shared = obj(obj(document.components, 'components').responses, 'responses');
    const tooMany = obj(shared.TooManyRequests, 'TooManyRequests');
    expect(obj(tooMany.headers, 'headers')).toHaveProperty('Retry-After');
    expect(tooMany.content).toEqual({ 'application/problem+json': { schema: { $ref: '#/components/schemas/ProblemDetails' } } });
    expect(obj(obj(shared.Unauthorized, 'Unauthorized').headers, 'headers')).toHaveProperty('WWW-Authenticate');
  });

  it('offers the route problemMediaTypes for 400 (barcodes: SVG and problem+json)', () => {
    const barcodes = routes.find((route) => route.operationId === 'renderBarcode');
    expect(barcodes).toBeDefined();
    if (!barcodes) return;
    const responses = obj(operationOf(document, barcodes).responses, 'responses');
    const badRequest = obj(obj(responses['400'], '400').content, 'content');
    expect(Object.keys(badRequest).sort()).toEqual(['application/problem+json', 'image/svg+xml']);
    expect(badRequest['application/problem+json']).toEqual({
      schema: {
        allOf: [{ $ref: '#/components/schemas/ProblemDetails' }, { type: 'object', properties: { code: { enum: ['customer-api.validation.failed'] } } }],
      },
    });
    const ok = obj(responses['200'], '200');
    expect(ok.content).toEqual({ 'image/svg+xml': { schema: { type: 'string' } } });
    expect(Object.keys(obj(ok.headers, 'headers'))).toEqual(['ETag', 'Cache-Control', 'Content-Security-Policy', 'RateLimit', 'RateLimit-Policy']);
  });

  it('derives query parameters from the zod contract (barcodes)', () => {
    const barcodes = routes.find((route) => route.operationId === 'renderBarcode');
    if (!barcodes) throw new Error('renderBarcode missing');
    const parameters = parametersOf(operationOf(document, barcodes));
    expect(parameters.map((parameter) => [parameter.name, parameter.in, parameter.required])).toEqual([
      ['payload', 'query', true],
      ['format', 'query', false],
      ['widthMm', 'query', false],
      ['heightMm', 'query', false],
      ['If-None-Match', 'header', false],
    ]);
    expect(parameters[2]?.schema).toEqual({ type: 'number', format: 'double', minimum: 1, maximum: 1000 });
    expect(obj(parameters[1]?.schema, 'format schema').default).toBe('qr');
  });

  it('takes ProblemDetails from the zod schema, without $schema keys', () => {
    const schemas = obj(obj(document.components, 'components').schemas, 'schemas');
    const problem = obj(schemas.ProblemDetails, 'ProblemDetails');
    expect(problem.type).toBe('object');
    expect(problem.required).toEqual(expect.arrayContaining(['type', 'title', 'status', 'instance', 'code', 'traceId']));
    expect(JSON.stringify(document)).not.toContain('"$schema"');
    expect(JSON.stringify(document)).not.toContain('#/$defs/');
  });
});

describe('buildOpenApiDocument with write routes (synthetic)', () => {
  const document = buildOpenApiDocument(SYNTHETIC_OPERATIONS);

  it('requires an Idempotency-Key header (string, ≤ 255) on every write route and only there', () => {
    for (const { route } of SYNTHETIC_OPERATIONS) {
      const header = parametersOf(operationOf(document, route)).find((parameter) => parameter.name === 'Idempotency-Key');
      if (isWriteRoute(route)) {
        expect(header, route.operationId).toMatchObject({ in: 'header', required: true, schema: { type: 'string', maxLength: 255 } });
      } else {
        expect(header, route.operationId).toBeUndefined();
      }
    }
    expect(
      SYNTHETIC_OPERATIONS.map(({ route }) => route)
        .filter(isWriteRoute)
        .map((route) => route.method)
        .sort(),
    ).toEqual(['DELETE', 'POST', 'POST', 'PUT']);
  });

  it('maps limitParam to an int32 1..200 with default 50, not required', () => {
    const list = SYNTHETIC_OPERATIONS[0]?.route;
    if (!list) throw new Error('no list route');
    const limit = parametersOf(operationOf(document, list)).find((parameter) => parameter.name === 'limit');
    expect(limit).toMatchObject({ in: 'query', required: false });
    expect(limit?.schema).toEqual({ type: 'integer', format: 'int32', minimum: 1, maximum: 200, default: 50 });
    expect(Object.keys(obj(limit?.schema, 'limit schema'))).toEqual(['type', 'format', 'minimum', 'maximum', 'default']);
  });

  it('maps the other wire primitives to their real types', () => {
    const list = SYNTHETIC_OPERATIONS[0]?.route;
    if (!list) throw new Error('no list route');
    const byName = new Map(parametersOf(operationOf(document, list)).map((parameter) => [parameter.name, parameter]));
    expect(byName.get('includeArchived')?.schema).toEqual({ type: 'boolean', default: false });
    expect(obj(byName.get('fromUtc')?.schema, 'fromUtc')).toMatchObject({ type: 'string', format: 'date-time' });
    expect(byName.get('cursor')).toMatchObject({ required: false, schema: { type: 'string', minLength: 1, maxLength: 2048 } });
    expect(byName.get('q')).toMatchObject({ required: false, schema: { type: 'string', maxLength: 200 } });
  });

  it('documents path parameters as required, in template order', () => {
    const replace = SYNTHETIC_OPERATIONS[2]?.route;
    if (!replace) throw new Error('no PUT route');
    const [id] = parametersOf(operationOf(document, replace));
    expect(id).toMatchObject({ name: 'id', in: 'path', required: true, schema: { type: 'string' } });
  });

  it('documents declared request headers as header parameters, after path and before Idempotency-Key', () => {
    const replace = SYNTHETIC_OPERATIONS[2]?.route;
    if (!replace) throw new Error('no PUT route');
    const parameters = parametersOf(operationOf(document, replace));
    expect(parameters.map((parameter) => [parameter.name, parameter.in, parameter.required])).toEqual([
      ['id', 'path', true],
      ['If-Match', 'header', true],
      ['Idempotency-Key', 'header', true],
    ]);
    expect(parameters[1]).toMatchObject({ description: 'The ETag of the record as last read.', schema: { type: 'string', minLength: 1 } });
  });

  it('rejects a path template whose parameters the route does not declare', () => {
    const deleteOperation = SYNTHETIC_OPERATIONS[3];
    if (!deleteOperation) throw new Error('no DELETE route');
    const broken = { ...deleteOperation, route: { ...deleteOperation.route, path: '/v1/synthetic/{id}/{other}' } };
    expect(() => buildOpenApiDocument([broken])).toThrow(/disagree/);
  });

  it('accepts JSON bodies as application/json, text/json and application/*+json', () => {
    const create = SYNTHETIC_OPERATIONS[1]?.route;
    if (!create) throw new Error('no POST route');
    const body = obj(operationOf(document, create).requestBody, 'requestBody');
    expect(body.required).toBe(true);
    const content = obj(body.content, 'content');
    expect(Object.keys(content)).toEqual(['application/json', 'text/json', 'application/*+json']);
    expect(obj(content['application/json'], 'json').schema).toMatchObject({ type: 'object', required: ['name'] });
  });

  it('documents multipart form fields with their wire types', () => {
    const upload = SYNTHETIC_OPERATIONS[4]?.route;
    if (!upload) throw new Error('no upload route');
    const content = obj(obj(operationOf(document, upload).requestBody, 'requestBody').content, 'content');
    expect(Object.keys(content)).toEqual(['multipart/form-data']);
    const schema = obj(obj(content['multipart/form-data'], 'multipart').schema, 'schema');
    expect(schema.required).toEqual(['kind', 'file']);
    const properties = obj(schema.properties, 'properties');
    expect(obj(properties.PageCount, 'PageCount')).toMatchObject({ type: 'integer', format: 'int32' });
    expect(obj(properties.file, 'file')).toMatchObject({ type: 'string', format: 'binary' });
  });

  it('offers JSON success bodies as application/json, text/json and text/plain, with registered schemas as components', () => {
    const create = SYNTHETIC_OPERATIONS[1]?.route;
    if (!create) throw new Error('no POST route');
    const created = obj(obj(operationOf(document, create).responses, 'responses')['201'], '201');
    expect(created.content).toEqual({
      'application/json': { schema: { $ref: '#/components/schemas/SyntheticDetail' } },
      'text/json': { schema: { $ref: '#/components/schemas/SyntheticDetail' } },
      'text/plain': { schema: { type: 'string', contentMediaType: 'application/json', contentSchema: { $ref: '#/components/schemas/SyntheticDetail' } } },
    });
    expect(Object.keys(obj(created.headers, 'headers'))).toEqual(['RateLimit', 'RateLimit-Policy', 'Idempotent-Replayed']);
    expect(Object.keys(obj(obj(document.components, 'components').schemas, 'schemas'))).toEqual(['ProblemDetails', 'SyntheticDetail']);
  });

  it('documents 204 without content and route-specific success headers', () => {
    const [deleteRoute, upload] = [SYNTHETIC_OPERATIONS[3]?.route, SYNTHETIC_OPERATIONS[4]?.route];
    if (!deleteRoute || !upload) throw new Error('routes missing');
    const noContent = obj(obj(operationOf(document, deleteRoute).responses, 'responses')['204'], '204');
    expect(noContent).not.toHaveProperty('content');
    const accepted = obj(obj(operationOf(document, upload).responses, 'responses')['202'], '202');
    expect(obj(accepted.headers, 'headers').Location).toEqual({ description: 'Relative URL of the queued job.', schema: { type: 'string' } });
    expect(operationOf(document, upload).description).toContain('submission rate limit');
  });
});

/** Spawns the Redocly CLI (bundled with @redocly/cli) on a document, with telemetry off. */
function redoclyLint(file: string): Promise<{ errors: number; warnings: number; problems: unknown[] }> {
  const cli = join(ROOT, 'node_modules/@redocly/cli/bin/cli.js');
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [cli, 'lint', file, '--config', join(ROOT, 'redocly.yaml'), '--format', 'json'],
      {
        cwd: ROOT,
        timeout: 60_000,
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
        maxBuffer: 16 * 1024 * 1024,
      },
      (error, stdout, stderr) => {
        try {
          const report = JSON.parse(stdout) as { totals: { errors: number; warnings: number }; problems: unknown[] };
          resolve({ ...report.totals, problems: report.problems });
        } catch {
          reject(new Error(`redocly lint produced no JSON report (${error?.message ?? 'no error'}):\n${stderr}\n${stdout}`));
        }
      },
    );
  });
}

describe('redocly lint (recommended ruleset, redocly.yaml)', () => {
  const directory = mkdtempSync(join(tmpdir(), 'openapi-lint-'));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it('passes docs/openapi.json with no errors and no warnings', async () => {
    const report = await redoclyLint(COMMITTED_PATH);
    expect(report.problems).toEqual([]);
    expect(report).toMatchObject({ errors: 0, warnings: 0 });
  });

  it('passes a document with write, multipart and list routes with no errors and no warnings', async () => {
    const file = join(directory, 'synthetic.json');
    writeFileSync(file, serializeOpenApiDocument(buildOpenApiDocument([...routeOperations(), ...SYNTHETIC_OPERATIONS])));
    const report = await redoclyLint(file);
    expect(report.problems).toEqual([]);
    expect(report).toMatchObject({ errors: 0, warnings: 0 });
  });
});
