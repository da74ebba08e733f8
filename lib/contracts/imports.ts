import * as z from './zod.ts';
import { idParam } from './primitives.ts';

/**
 * Request schemas shared by the import operations; each operation's own contract is in
 * lib/contracts/imports/<operation>.ts, so a function bundles only its route's schemas. The
 * response bodies are in lib/contracts/imports/responses.ts, which no function imports.
 */

export const importJobPath = z.strictObject({ id: idParam });
