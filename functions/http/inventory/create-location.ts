import { writeChainDependencies } from '../../../lib/app/composition-writes.ts';
import { createLocationContract } from '../../../lib/inventory/contracts/catalog-writes.ts';
import { versionETag } from '../../../lib/inventory/domain/reads.ts';
import { createLocationRoute } from '../../../lib/inventory/routes.ts';
import { bindOperation } from '../../../lib/platform/contracts/operation.ts';
import { createOperationHandler } from '../../../lib/platform/http/chain.ts';
import { catalogCommands, decideAgainOnConflict } from './catalog-writes.ts';

const commands = catalogCommands();

export const handler = createOperationHandler(
  bindOperation(createLocationRoute, createLocationContract),
  writeChainDependencies,
  async ({ body, principal, commit }) =>
    decideAgainOnConflict(() =>
      commit(
        () => commands.createLocation(principal.organizationId, body),
        ({ view, version }) => ({ status: 201, json: view, headers: { Location: `/v1/locations/${view.id}`, ETag: versionETag(version) } }),
      ),
    ),
);
