/** JSON values as the OpenAPI generator handles them, and the cleanup every converted schema gets. */

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Deep copy of a JSON value, without `$schema` keys and with `#/$defs/` refs pointed at components. */
export function normalizeJson(value: unknown): JsonValue {
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

export function orderKeywords(schema: JsonObject): JsonObject {
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
