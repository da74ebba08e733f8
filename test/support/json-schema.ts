import { Ajv2020 } from 'ajv/dist/2020.js';

/**
 * JSON Schema 2020-12 validation with ajv. `format` stays an annotation (the 2020-12 default
 * vocabulary); our timestamp patterns carry the real rule.
 */
const ajv = new Ajv2020({ strict: true, allErrors: true, allowUnionTypes: true, validateFormats: false });

/** Error messages; empty when `value` is valid against `schema`. */
export function schemaErrors(schema: object, value: unknown): string[] {
  const validate = ajv.compile(schema);
  return validate(value) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message ?? 'is invalid'}`);
}
