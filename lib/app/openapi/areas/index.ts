import { attachmentsOpenApi } from './attachments.ts';
import { auditOpenApi } from './audit.ts';
import { bomsOpenApi } from './boms.ts';
import { eventsOpenApi } from './events.ts';
import { exportsOpenApi } from './exports.ts';
import { importsOpenApi } from './imports.ts';
import { inventoryOpenApi } from './inventory.ts';
import { labelsOpenApi } from './labels.ts';
import { reservationsOpenApi } from './reservations.ts';
import { buildsOpenApi } from './builds.ts';
import { stockOpenApi } from './stock.ts';
import { webhooksOpenApi } from './webhooks.ts';

/**
 * Every area's part of the OpenAPI document (`OpenApiArea`, ./types.ts), in the order of the route
 * table (lib/app/routes.ts). lib/app/operations.ts pairs the routes with their contracts
 * from here, lib/app/problem-codes.ts reads the areas' own codes and the generator the tag
 * descriptions. A new area adds its file and one line here (a missing one is a type error in
 * operations.ts).
 */
export const OPENAPI_AREAS = [
  labelsOpenApi,
  eventsOpenApi,
  auditOpenApi,
  importsOpenApi,
  attachmentsOpenApi,
  bomsOpenApi,
  buildsOpenApi,
  inventoryOpenApi,
  stockOpenApi,
  reservationsOpenApi,
  exportsOpenApi,
  webhooksOpenApi,
] as const;
