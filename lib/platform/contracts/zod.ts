import { config, type core } from 'zod/mini';
import { en } from 'zod/locales';

/**
 * The zod every contract, the request validation and the OpenAPI and events-schema generators
 * use: `zod/mini`, the functional API (`z.optional(x)`, `x.check(z.minLength(1))`,
 * `z.pipe(x, z.transform(f))`). Classic zod (`x.min(1).optional()`) is ~90 KB minified in every
 * function because each schema carries every method and nothing tree-shakes; mini is 17–27 KB.
 * Import it as `import * as z from './zod.ts'` (a namespace import keeps it tree-shakable).
 *
 * zod/mini's functions are marked free of side effects, but `.check()` is a method call, which a
 * bundler must keep even when nothing uses the schema. So in a module that more than one function
 * imports (primitives.ts, the area modules such as boms.ts), each top-level schema built with
 * `.check()` is built in an arrow function called at once and annotated `@__PURE__`: a function
 * that does not use the schema then drops it (GET /v1/boms/{id} carries neither the BOM bodies
 * nor the date-time primitive; test/infra/bundle-contents.test.ts checks a few such cases).
 *
 * Unlike classic zod, mini loads no locale: without one every issue zod words itself reads
 * "Invalid input", and those messages reach clients in problem documents (`errors[].message`,
 * lib/platform/http/zod-issues.ts). English, as classic zod would set it, costs ~3 KB.
 */
config(en());

export * from 'zod/mini';

/**
 * Any zod schema, mini or classic (tests may build contracts with either): the type operation
 * contracts and the handler chain accept.
 */
export type ZodType = core.$ZodType;
