import { bindOperation, type RouteOperation } from '../../platform/contracts/operation.ts';
import { routeOperations } from '../operations.ts';
import { problemSchema } from '../../platform/contracts/problem.ts';
import { OPENAPI_AREAS } from './areas/index.ts';
import { METHOD_ORDER } from './conventions.ts';
import type { JsonObject } from '../../platform/contracts/json.ts';
import { SchemaComponents } from './json-schema.ts';
import { OperationBuilder } from './operation-object.ts';
import { ResponseComponents } from './problem-responses.ts';

/**
 * OpenAPI 3.1 description of the customer API, derived from the route table (lib/app/routes.ts)
 * and each route's operation contract (lib/app/operations.ts); each area adds its tag's
 * description, contracts and problem codes in its part (lib/app/openapi/areas/<area>.ts).
 * `scripts/generate-openapi.ts` writes it to `docs/openapi.json`; the contract test fails when
 * the committed file drifts from `buildOpenApiDocument()`. No contract carries OpenAPI-only
 * hints; everything is read from the schemas as they are (json-schema.ts, wire-values.ts).
 */

export type OpenApiDocument = JsonObject;

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

/** The tag's description from its area's part; a tag no area describes (a test's own) gets a generic one. */
function tagDescription(name: string): string {
  return OPENAPI_AREAS.find((area) => area.tag.name === name)?.tag.description ?? `Operations of the ${name} area.`;
}

/**
 * The OpenAPI 3.1 document of `operations` (by default every route of the table with its
 * contract); pure and deterministic (same operations → same JSON text).
 */
export function buildOpenApiDocument(operations: readonly RouteOperation[] = routeOperations()): OpenApiDocument {
  const schemas = new SchemaComponents();
  const responseComponents = new ResponseComponents();
  const builder = new OperationBuilder(schemas, responseComponents);
  // ProblemDetails first, so the components hold the response shape under its plain id.
  schemas.convert(problemSchema, 'output');

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
    tags: tagNames.map((name) => ({ name, description: tagDescription(name) })),
    paths,
    components: {
      schemas: schemas.toJson(),
      responses: responseComponents.responsesJson(),
      headers: responseComponents.headersJson(),
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
