import { chainDependencies } from '../../../lib/composition.ts';
import { requiredEnv } from '../../../lib/config/env.ts';
import { getItemAvailabilityContract } from '../../../lib/contracts/inventory/operations.ts';
import { bindOperation } from '../../../lib/contracts/operation.ts';
import { ItemAvailabilityReads } from '../../../lib/domain/inventory/availability.ts';
import { createOperationHandler } from '../../../lib/http/chain.ts';
import { getItemAvailabilityRoute } from '../../../lib/routes/inventory.ts';
import { ItemAvailabilityStore } from '../../../lib/store/item-availability-store.ts';
import { TABLES } from '../../../lib/store/tables.ts';

const reads = new ItemAvailabilityReads(new ItemAvailabilityStore(requiredEnv(TABLES.inventory.envVar)));

export const handler = createOperationHandler(bindOperation(getItemAvailabilityRoute, getItemAvailabilityContract), chainDependencies, async ({ path, query, principal }) => ({
  status: 200,
  json: await reads.availability(principal.organizationId, path.id, query.afterLocationId),
}));
