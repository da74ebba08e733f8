import { requiredEnv } from '../../../lib/platform/config/env.ts';
import { CatalogCommands, decideAgainOnConflict } from '../../../lib/inventory/domain/catalog-writes.ts';
import { catalogPorts } from '../../../lib/inventory/store/catalog-store.ts';
import { TABLES } from '../../../lib/platform/storage/tables.ts';

/**
 * The catalog commands a function builds once, at cold start (docs/inventory.md "Writing the
 * catalog"), and the loop that decides a write again after it lost a race.
 */
export const catalogCommands = () => new CatalogCommands(catalogPorts(requiredEnv(TABLES.inventory.envVar)));

export { decideAgainOnConflict };
