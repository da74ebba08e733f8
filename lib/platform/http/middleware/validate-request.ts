import * as z from '../../contracts/zod.ts';
import { ApiError, ValidationError, type FieldError } from '../../core/errors.ts';
import type { RouteOperation } from '../../contracts/operation.ts';
import { isJsonRequestMediaType } from '../content-negotiation.ts';
import { header } from '../headers.ts';
import type { MultipartParser } from '../multipart.ts';
import { stateOf, type HttpEvent, type HttpMiddleware, type MiddyRequest } from '../types.ts';
import { toFieldErrors } from '../zod-issues.ts';

/** Largest JSON body accepted unless the route sets its own (`requestBody.maxBytes`); multipart routes set their own limits. */
export const JSON_BODY_MAX_BYTES = 256 * 1024;

const NO_PARAMETERS = z.strictObject({});

/** Query parameters from the raw query string; a parameter given twice is a validation error. */
function parseQuery(rawQueryString: string | undefined): { values: Record<string, string>; repeated: FieldError[] } {
  const values: Record<string, string> = {};
  const repeated: FieldError[] = [];
  for (const [name, value] of new URLSearchParams(rawQueryString ?? '')) {
    if (Object.hasOwn(values, name)) {
      if (!repeated.some((error) => error.name === name)) {
        repeated.push({ location: 'query', name, code: 'repeated', message: 'Give this parameter at most once.' });
      }
      continue;
    }
    values[name] = value;
  }
  return { values, repeated };
}

/**
 * The declared headers only, under their declared names: header names are case-insensitive and
 * every request carries headers the operation does not read (Authorization, Accept, …).
 */
function pickHeaders(event: HttpEvent, names: readonly string[]): Record<string, string> {
  const values: Record<string, string> = {};
  for (const name of names) {
    const value = header(event, name);
    if (value !== undefined) values[name] = value;
  }
  return values;
}

function decodeBody(event: HttpEvent): string {
  const raw = event.body ?? '';
  return event.isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw;
}

function parseJsonBody(event: HttpEvent, maxBytes: number): unknown {
  if (!isJsonRequestMediaType(header(event, 'content-type'))) {
    throw new ApiError(415, 'customer-api.request.unsupported-media-type', 'Unsupported media type', {
      detail: 'Send the body as application/json, text/json or application/*+json.',
    });
  }
  const text = decodeBody(event);
  if (Buffer.byteLength(text, 'utf8') > maxBytes) {
    throw new ApiError(413, 'customer-api.request.too-large', 'Request too large', {
      detail: `JSON bodies are limited to ${maxBytes} bytes.`,
    });
  }
  try {
    return JSON.parse(text);
  } catch {
    throw new ValidationError([{ location: 'body', pointer: '', code: 'invalid-json', message: 'The body is not valid JSON.' }]);
  }
}

/**
 * Parses and validates path, query, declared headers and body against the operation's zod
 * contract. A path value that cannot be an id of this route is reported as not found: it cannot
 * name anything. Multipart routes get the parser from their handler (see `ChainDependencies`),
 * so that no other function bundles it.
 */
export function validateRequest({ route, contract }: RouteOperation, parseMultipart?: MultipartParser): HttpMiddleware {
  if (route.requestBody?.mediaType === 'multipart' && !parseMultipart) {
    throw new Error(`${route.operationId} takes multipart/form-data: its handler must pass the multipart parser (lib/platform/http/multipart.ts)`);
  }
  const { request } = contract;
  const querySchema = request.query ?? NO_PARAMETERS;
  const headerNames = Object.keys(request.headers?._zod.def.shape ?? {});
  return {
    before: async (middyRequest: MiddyRequest) => {
      const { event } = middyRequest;
      let path: unknown = {};
      if (request.path) {
        const parsedPath = z.safeParse(request.path, event.pathParameters ?? {});
        if (!parsedPath.success)
          throw new ApiError(404, `customer-api.${route.tag.toLowerCase()}.not-found`, 'Not found', { detail: 'The resource does not exist.' });
        path = parsedPath.data;
      }

      const { values, repeated } = parseQuery(event.rawQueryString);
      const parsedQuery = z.safeParse(querySchema, values);
      const errors = [...repeated, ...(parsedQuery.success ? [] : toFieldErrors(parsedQuery.error, 'query', values))];

      let headers: unknown = {};
      if (request.headers) {
        const headerValues = pickHeaders(event, headerNames);
        const parsedHeaders = z.safeParse(request.headers, headerValues);
        if (parsedHeaders.success) headers = parsedHeaders.data;
        else errors.push(...toFieldErrors(parsedHeaders.error, 'header', headerValues));
      }

      let body: unknown;
      const bodySchema = request.body;
      const bodySpec = route.requestBody;
      if (bodySchema && bodySpec?.mediaType === 'json') {
        const json = bodySpec.optional && decodeBody(event).trim() === '' ? undefined : parseJsonBody(event, bodySpec.maxBytes ?? JSON_BODY_MAX_BYTES);
        const parsedBody = z.safeParse(bodySchema, json);
        if (parsedBody.success) body = parsedBody.data;
        else errors.push(...toFieldErrors(parsedBody.error, 'body', json));
      } else if (bodySchema && bodySpec?.mediaType === 'multipart' && parseMultipart) {
        const form = await parseMultipart(event, bodySpec.limits);
        const values: Record<string, unknown> = { ...form.fields };
        for (const file of form.files) values[file.fieldName] = file;
        const parsedForm = z.safeParse(bodySchema, values);
        if (parsedForm.success) body = parsedForm.data;
        else errors.push(...toFieldErrors(parsedForm.error, 'form', values));
      }

      if (errors.length > 0) throw new ValidationError(errors);
      stateOf(middyRequest).input = { path, query: parsedQuery.data, headers, body };
    },
  };
}
