import { writeChainDependencies } from '../../../lib/app/composition-writes.ts';
import { requiredEnv } from '../../../lib/platform/config/env.ts';
import { submitBuildContract } from '../../../lib/builds/contracts/operations.ts';
import { bindOperation } from '../../../lib/platform/contracts/operation.ts';
import { publicBuild } from '../../../lib/builds/domain/build.ts';
import { SubmitBuildCommand } from '../../../lib/builds/domain/submit.ts';
import { createOperationHandler } from '../../../lib/platform/http/chain.ts';
import { describeError, log } from '../../../lib/platform/observability/log.ts';
import { submitBuildRoute } from '../../../lib/builds/routes.ts';
import { BomsStore } from '../../../lib/boms/store/boms-store.ts';
import { BuildsStore } from '../../../lib/builds/store/builds-store.ts';
import { InventoryStore } from '../../../lib/inventory/store/inventory-store.ts';
import { JobQueue } from '../../../lib/platform/aws/job-queue.ts';
import { StockChangeStoreReads } from '../../../lib/stock/store/stock-change-reads.ts';
import { StockStore } from '../../../lib/stock/store/stock-store.ts';
import { BUILD_QUEUE_ENV_VAR, TABLES } from '../../../lib/platform/storage/tables.ts';

const table = requiredEnv(TABLES.inventory.envVar);
const reads = new StockChangeStoreReads(table, new InventoryStore(table));
const command = new SubmitBuildCommand({
  builds: new BuildsStore(table, new StockStore(table)),
  boms: new BomsStore(table),
  references: (organizationId, wanted) => reads.references(organizationId, wanted),
});
const queue = new JobQueue(requiredEnv(BUILD_QUEUE_ENV_VAR));

export const handler = createOperationHandler(
  bindOperation(submitBuildRoute, submitBuildContract),
  writeChainDependencies,
  async ({ body, principal, commit }) => {
    // Set when this request committed the build (not on a replay of a stored response: the first one sent it).
    let committed: string | undefined;
    const response = await commit(
      () =>
        command.submit(
          principal.organizationId,
          { ...body, outputLot: body.outputLot ?? null, sources: (body.sources ?? []).map((source) => ({ ...source, lot: source.lot ?? null })) },
          { type: 'api-key', id: principal.keyId },
        ),
      (build) => {
        committed = build.id;
        return { status: 202, json: publicBuild(build), headers: { Location: `/v1/builds/${build.id}` } };
      },
    );
    // A send that fails leaves the build queued; the build sweep sends it within minutes.
    if (committed)
      await queue
        .send({ organizationId: principal.organizationId, jobId: committed })
        .catch((error: unknown) => log('warn', 'build message not sent; the sweep sends it', { buildId: committed, error: describeError(error) }));
    return response;
  },
);
