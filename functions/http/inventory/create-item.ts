import { writeChainDependencies } from '../../../lib/app/composition-writes.ts';
import { createItemContract } from '../../../lib/inventory/contracts/catalog-writes.ts';
import { versionETag } from '../../../lib/inventory/domain/reads.ts';
import { createItemRoute } from '../../../lib/inventory/routes.ts';
import { bindOperation } from '../../../lib/platform/contracts/operation.ts';
import { createOperationHandler } from '../../../lib/platform/http/chain.ts';
import { catalogCommands, decideAgainOnConflict } from './catalog-writes.ts';

const commands = catalogCommands();

export const handler = createOperationHandler(bindOperation(createItemRoute, createItemContract), writeChainDependencies, async ({ body, principal, commit }) =>
  decideAgainOnConflict(() =>
    commit(
      () => commands.createItem(principal.organizationId, body),
      ({ view, version }) => ({ status: 201, json: view, headers: { Location: `/v1/items/${view.id}`, ETag: versionETag(version) } }),
    ),
  ),
);
