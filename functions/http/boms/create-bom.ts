import { largeResponseWriteChainDependencies } from '../../../lib/app/composition-large-responses.ts';
import { requiredEnv } from '../../../lib/platform/config/env.ts';
import { createBomContract } from '../../../lib/boms/contracts/create-bom.ts';
import { bindOperation } from '../../../lib/platform/contracts/operation.ts';
import { bomETag, CreateBomCommand } from '../../../lib/boms/domain/commands.ts';
import { publicBom } from '../../../lib/boms/domain/views.ts';
import { createOperationHandler } from '../../../lib/platform/http/chain.ts';
import { createBomRoute } from '../../../lib/boms/routes.ts';
import { BomWritesStore } from '../../../lib/boms/store/bom-writes-store.ts';
import { InventoryRecordChecks } from '../../../lib/inventory/store/inventory-record-checks.ts';
import { TABLES } from '../../../lib/platform/storage/tables.ts';

const table = requiredEnv(TABLES.inventory.envVar);
const commands = new CreateBomCommand({ boms: new BomWritesStore(table), items: new InventoryRecordChecks(table) });

export const handler = createOperationHandler(
  bindOperation(createBomRoute, createBomContract),
  largeResponseWriteChainDependencies,
  async ({ body, principal, commit }) =>
    commit(
      () => commands.create(principal.organizationId, principal.keyId, body),
      ({ bom, version }) => ({ status: 201, json: publicBom(bom), headers: { Location: `/v1/boms/${bom.id}`, ETag: bomETag(bom, version) } }),
    ),
);
