import { writeChainDependencies } from '../../../lib/app/composition-writes.ts';
import { updateItemContract } from '../../../lib/inventory/contracts/catalog-writes.ts';
import { versionETag } from '../../../lib/inventory/domain/reads.ts';
import { updateItemRoute } from '../../../lib/inventory/routes.ts';
import { bindOperation } from '../../../lib/platform/contracts/operation.ts';
import { createOperationHandler } from '../../../lib/platform/http/chain.ts';
import { catalogCommands, decideAgainOnConflict } from './catalog-writes.ts';

const commands = catalogCommands();

export const handler = createOperationHandler(
  bindOperation(updateItemRoute, updateItemContract),
  writeChainDependencies,
  async ({ path, headers, body, principal, commit }) =>
    decideAgainOnConflict(() =>
      commit(
        () => commands.updateItem(principal.organizationId, path.id, body, headers['If-Match']),
        ({ view, version }) => ({ status: 200, json: view, headers: { ETag: versionETag(version) } }),
      ),
    ),
);
