import * as z from '../../platform/contracts/zod.ts';
import { EXPORT_FORMATS } from '../domain/job.ts';
import { idParam } from '../../platform/contracts/primitives.ts';

/**
 * Request schemas shared by the export operations (docs/exports.md); each operation's own contract
 * is in lib/exports/contracts/<operation>.ts, the response bodies in
 * lib/exports/contracts/responses.ts. The kind and its filters are checked against the kind's
 * declaration (lib/exports/domain/kinds.ts) by the domain, so every problem is named at once.
 */

export const exportPath = z.strictObject({ id: idParam });

export const submitExportBody = /* @__PURE__ */ (() =>
  z.strictObject({
    kind: z.string({ message: 'Required.' }).check(z.minLength(1), z.maxLength(64), z.describe('An export kind of `GET /v1/exports/kinds`.')),
    format: z._default(z.optional(z.enum(EXPORT_FORMATS, { message: `Must be one of: ${EXPORT_FORMATS.join(', ')}.` })), 'csv'),
    filters: z._default(
      z.optional(
        z
          .record(z.string().check(z.minLength(1), z.maxLength(64)), z.union([z.string(), z.boolean()]))
          .check(z.describe('The kind’s filters by name (`GET /v1/exports/kinds`).')),
      ),
      {},
    ),
  }))();
