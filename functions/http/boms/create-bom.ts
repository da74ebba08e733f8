import { largeResponseWriteChainDependencies } from '../../../lib/composition-large-responses.ts';
import { requiredEnv } from '../../../lib/config/env.ts';
import { createBomContract } from '../../../lib/contracts/boms/create-bom.ts';
import { bindOperation } from '../../../lib/contracts/operation.ts';
import { bomETag, CreateBomCommand } from '../../../lib/domain/boms/commands.ts';
import { publicBom } from '../../../lib/domain/boms/views.ts';
import { createOperationHandler } from '../../../lib/http/chain.ts';
import { createBomRoute } from '../../../lib/routes/boms.ts';
import { BomWritesStore } from '../../../lib/store/bom-writes-store.ts';
import { InventoryRecordChecks } from '../../../lib/store/inventory-record-checks.ts';
import { TABLES } from '../../../lib/store/tables.ts';

const table = requiredEnv(TABLES.inventory.envVar);
const commands = new CreateBomCommand({ boms: new BomWritesStore(table), items: new InventoryRecordChecks(table) });

export const handler = createOperationHandler(bindOperation(createBomRoute, createBomContract), largeResponseWriteChainDependencies, async ({ body, principal, commit }) =>
  commit(
    () => commands.create(principal.organizationId, principal.keyId, body),
    ({ bom, version }) => ({ status: 201, json: publicBom(bom), headers: { Location: `/v1/boms/${bom.id}`, ETag: bomETag(bom, version) } }),
  ),
);
