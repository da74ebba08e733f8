import { largeResponseWriteChainDependencies } from '../../../lib/composition-large-responses.ts';
import { requiredEnv } from '../../../lib/config/env.ts';
import { updateBomContract } from '../../../lib/contracts/boms/update-bom.ts';
import { bindOperation } from '../../../lib/contracts/operation.ts';
import { bomETag, UpdateBomCommand } from '../../../lib/domain/boms/commands.ts';
import { publicBom } from '../../../lib/domain/boms/views.ts';
import { createOperationHandler } from '../../../lib/http/chain.ts';
import { updateBomRoute } from '../../../lib/routes/boms.ts';
import { BomWritesStore } from '../../../lib/store/bom-writes-store.ts';
import { InventoryRecordChecks } from '../../../lib/store/inventory-record-checks.ts';
import { TABLES } from '../../../lib/store/tables.ts';

const table = requiredEnv(TABLES.inventory.envVar);
const commands = new UpdateBomCommand({ boms: new BomWritesStore(table), items: new InventoryRecordChecks(table) });

export const handler = createOperationHandler(bindOperation(updateBomRoute, updateBomContract), largeResponseWriteChainDependencies, async ({ path, headers, body, principal, commit }) =>
  commit(
    () => commands.update(principal.organizationId, principal.keyId, path.id, body, headers['If-Match']),
    ({ bom, version }) => ({ status: 200, json: publicBom(bom), headers: { ETag: bomETag(bom, version) } }),
  ),
);
