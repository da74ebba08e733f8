import type * as z from '../../platform/contracts/zod.ts';
import type { RouteDefinition } from '../../platform/contracts/route-types.ts';
import { booleanString, dateTimeString, doubleString, int32String } from '../../platform/contracts/primitives.ts';
import { orderKeywords, type JsonObject } from '../../platform/contracts/json.ts';
import { rawJsonSchema, type Schema, type SchemaComponents } from './json-schema.ts';

/**
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
 */

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

export function parametersFrom(schema: Schema, location: 'query' | 'path' | 'header', route: RouteDefinition, components: SchemaComponents): JsonObject[] {
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

export function pathTemplateNames(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] ?? '');
}

/** multipart/form-data fields are strings on the wire, like query values; files stay as zod writes them. */
export function formSchema(schema: Schema, route: RouteDefinition, components: SchemaComponents): JsonObject {
  if (schema._zod.def.type !== 'object') return components.convert(schema, 'input');
  const shape = objectShape(schema, `${route.operationId}: request.body`);
  const required = requiredInputKeys(schema);
  const properties: JsonObject = {};
  for (const [name, property] of Object.entries(shape)) {
    const { schema: valueSchema, note } = wireValueSchema(property, components);
    const description = joinText(typeof valueSchema.description === 'string' ? valueSchema.description : undefined, note);
    if (description !== undefined) valueSchema.description = description;
    properties[name] = orderKeywords(valueSchema);
  }
  const result: JsonObject = { type: 'object', properties };
  const requiredNames = Object.keys(shape).filter((name) => required.has(name));
  if (requiredNames.length > 0) result.required = requiredNames;
  return result;
}
