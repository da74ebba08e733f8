import * as z from '../../platform/contracts/zod.ts';
import { isJsonObject, normalizeJson, type JsonObject, type JsonValue } from '../../platform/contracts/json.ts';

/**
 * zod → JSON Schema: zod 4's `z.toJSONSchema` (draft 2020-12, the dialect of OpenAPI 3.1).
 * Schemas registered with `.meta({ id })` land in `components.schemas` and are `$ref`ed.
 */

type Io = 'input' | 'output';
export type Schema = z.core.$ZodType;

export function rawJsonSchema(schema: Schema, io: Io): JsonObject {
  const json = normalizeJson(z.toJSONSchema(schema, { io, target: 'draft-2020-12', unrepresentable: 'any' }));
  if (!isJsonObject(json)) throw new Error('z.toJSONSchema returned a non-object');
  return json;
}

/** Collects the `$defs` of every conversion into `components.schemas`. */
export class SchemaComponents {
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
