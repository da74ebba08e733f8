import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

/** JSON Schema 2020-12 validation with ajv 8 and its standard formats (date-time, …). */
const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true });
// ajv-formats is CommonJS: under ESM interop its function is the module's `default` member.
type AddFormats = (instance: typeof ajv) => unknown;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ?? addFormatsModule) as unknown as AddFormats;
addFormats(ajv);

const compiled = new WeakMap<object, ReturnType<typeof ajv.compile>>();

/** Error messages; empty when `value` is valid against `schema`. */
export function schemaErrors(schema: object, value: unknown): string[] {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate(value) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message ?? 'is invalid'}`);
}
