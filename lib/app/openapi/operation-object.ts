import type { RouteDefinition } from '../../platform/contracts/route-types.ts';
import type { RouteOperation } from '../../platform/contracts/operation.ts';
import { routeProblemCodes } from '../problem-codes.ts';
import { isWriteRoute, JSON_REQUEST_MEDIA_TYPES, JSON_RESPONSE_MEDIA_TYPES } from './conventions.ts';
import { curlExample } from './curl-samples.ts';
import type { JsonObject } from '../../platform/contracts/json.ts';
import type { SchemaComponents } from './json-schema.ts';
import { CHAIN_ERROR_STATUSES, type ResponseComponents } from './problem-responses.ts';
import { formSchema, parametersFrom, pathTemplateNames } from './wire-values.ts';

/**
 * One route's OpenAPI operation object: description, parameters, request body, responses and
 * curl sample, from its route metadata (lib/<area>/routes.ts) and its operation contract. Schemas and
 * shared responses go into the document's components as they are met.
 */
export class OperationBuilder {
  constructor(
    private readonly schemas: SchemaComponents,
    private readonly responseComponents: ResponseComponents,
  ) {}

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
      const schema = body.mediaType === 'json' ? this.schemas.convert(bodySchema, 'input') : formSchema(bodySchema, route, this.schemas);
      const content: JsonObject = {};
      for (const mediaType of mediaTypes) content[mediaType] = { schema };
      operation.requestBody = { required: !(body.mediaType === 'json' && body.optional), content };
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
    if (route.requestBody?.mediaType === 'json' && route.requestBody.maxBytes !== undefined) {
      lines.push('', `Takes a JSON body of up to ${route.requestBody.maxBytes.toLocaleString('en-US')} bytes; a larger one is a 413.`);
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

  private responses({ route, response }: RouteOperation, write: boolean): JsonObject {
    const responses: JsonObject = {};
    const success = route.success;

    const headers: JsonObject = {};
    for (const [name, description] of Object.entries(success.headers ?? {})) {
      headers[name] = { description, schema: { type: 'string' } };
    }
    Object.assign(headers, this.responseComponents.rateLimitHeaders());
    if (write) headers['Idempotent-Replayed'] = this.responseComponents.headerRef('Idempotent-Replayed');

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
      Object.assign(notModifiedHeaders, this.responseComponents.rateLimitHeaders());
      responses['304'] = { description: "`If-None-Match` matches the image: the client's copy is current. No body.", headers: notModifiedHeaders };
    }

    const routeCodes = routeProblemCodes(route);
    const statuses = [...new Set([...routeCodes.keys(), ...CHAIN_ERROR_STATUSES])].sort((a, b) => a - b);
    for (const status of statuses) {
      const extra = status === 400 ? (route.problemMediaTypes ?? []) : [];
      const codes = routeCodes.get(status);
      responses[String(status)] =
        codes === undefined ? this.responseComponents.sharedErrorRef(status) : this.responseComponents.operationProblemResponse(status, codes, extra);
    }
    return responses;
  }
}
