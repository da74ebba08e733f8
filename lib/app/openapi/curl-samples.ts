import type { RouteDefinition } from '../../platform/contracts/route-types.ts';
import { isWriteRoute } from './conventions.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../../platform/contracts/json.ts';

/** curl examples (`x-codeSamples`, shown by the reference page: docs/api-guide.md#api-reference). */

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
  return `$${name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9_]/g, '_')
    .toUpperCase()}`;
}

/**
 * One curl command per operation: the base URL and key from `$BASE_URL` and `$API_KEY`, path
 * parameters as shell variables, required query values as examples, `Idempotency-Key` on writes,
 * a JSON body from `body.json` and multipart fields with example values.
 */
export function curlExample(route: RouteDefinition, parameters: readonly JsonObject[], requestBody: JsonValue | undefined): string {
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
