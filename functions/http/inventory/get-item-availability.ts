import { chainDependencies } from '../../../lib/app/composition.ts';
import { requiredEnv } from '../../../lib/platform/config/env.ts';
import { getItemAvailabilityContract } from '../../../lib/inventory/contracts/operations.ts';
import { bindOperation } from '../../../lib/platform/contracts/operation.ts';
import { ItemAvailabilityReads } from '../../../lib/inventory/domain/availability.ts';
import { createOperationHandler } from '../../../lib/platform/http/chain.ts';
import { getItemAvailabilityRoute } from '../../../lib/inventory/routes.ts';
import { ItemAvailabilityStore } from '../../../lib/inventory/store/item-availability-store.ts';
import { TABLES } from '../../../lib/platform/storage/tables.ts';

const reads = new ItemAvailabilityReads(new ItemAvailabilityStore(requiredEnv(TABLES.inventory.envVar)));

export const handler = createOperationHandler(
  bindOperation(getItemAvailabilityRoute, getItemAvailabilityContract),
  chainDependencies,
  async ({ path, query, principal }) => ({
    status: 200,
    json: await reads.availability(principal.organizationId, path.id, query.afterLocationId),
  }),
);
