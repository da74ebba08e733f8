import { writeChainDependencies } from '../../../lib/app/composition-writes.ts';
import { requiredEnv } from '../../../lib/platform/config/env.ts';
import { deleteAttachmentContract } from '../../../lib/attachments/contracts/delete-attachment.ts';
import { bindOperation } from '../../../lib/platform/contracts/operation.ts';
import { createOperationHandler } from '../../../lib/platform/http/chain.ts';
import { describeError, log } from '../../../lib/platform/observability/log.ts';
import { deleteAttachmentRoute } from '../../../lib/attachments/routes.ts';
import { AttachmentObjectsStore } from '../../../lib/attachments/store/attachment-objects.ts';
import { BUCKET_ENV_VAR } from '../../../lib/platform/storage/tables.ts';
import { attachmentCommands } from './commands.ts';

const commands = attachmentCommands({ objects: new AttachmentObjectsStore(requiredEnv(BUCKET_ENV_VAR)) });

export const handler = createOperationHandler(
  bindOperation(deleteAttachmentRoute, deleteAttachmentContract),
  writeChainDependencies,
  async ({ path, principal, commit }) => {
    const plan = await commands.delete(principal.organizationId, path.id);
    const response = await commit(
      async () => plan,
      () => ({ status: 204, empty: true }),
    );
    // The record is gone: a body left behind is an orphan the sweeper removes (docs/attachments.md "Deleting").
    await commands
      .removeBody(plan.result)
      .catch((error: unknown) => log('warn', 'attachment body left for the orphan sweep', { attachmentId: path.id, ...describeError(error) }));
    return response;
  },
);
