import * as z from '../../platform/contracts/zod.ts';
import { idParam } from '../../platform/contracts/primitives.ts';

/**
 * Request schemas shared by the import operations; each operation's own contract is in
 * lib/imports/contracts/<operation>.ts, so a function bundles only its route's schemas. The
 * response bodies are in lib/imports/contracts/responses.ts, which no function imports.
 */

export const importJobPath = z.strictObject({ id: idParam });
