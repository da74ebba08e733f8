import { largeResponseWriteChainDependencies } from '../../../lib/app/composition-large-responses.ts';
import { requiredEnv } from '../../../lib/platform/config/env.ts';
import { updateBomContract } from '../../../lib/boms/contracts/update-bom.ts';
import { bindOperation } from '../../../lib/platform/contracts/operation.ts';
import { bomETag, UpdateBomCommand } from '../../../lib/boms/domain/commands.ts';
import { publicBom } from '../../../lib/boms/domain/views.ts';
import { createOperationHandler } from '../../../lib/platform/http/chain.ts';
import { updateBomRoute } from '../../../lib/boms/routes.ts';
import { BomWritesStore } from '../../../lib/boms/store/bom-writes-store.ts';
import { InventoryRecordChecks } from '../../../lib/inventory/store/inventory-record-checks.ts';
import { TABLES } from '../../../lib/platform/storage/tables.ts';

const table = requiredEnv(TABLES.inventory.envVar);
const commands = new UpdateBomCommand({ boms: new BomWritesStore(table), items: new InventoryRecordChecks(table) });

export const handler = createOperationHandler(
  bindOperation(updateBomRoute, updateBomContract),
  largeResponseWriteChainDependencies,
  async ({ path, headers, body, principal, commit }) =>
    commit(
      () => commands.update(principal.organizationId, principal.keyId, path.id, body, headers['If-Match']),
      ({ bom, version }) => ({ status: 200, json: publicBom(bom), headers: { ETag: bomETag(bom, version) } }),
    ),
);
