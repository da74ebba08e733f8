import { writeChainDependencies } from '../../../lib/composition-writes.ts';
import { requiredEnv } from '../../../lib/config/env.ts';
import { deleteAttachmentContract } from '../../../lib/contracts/attachments/delete-attachment.ts';
import { bindOperation } from '../../../lib/contracts/operation.ts';
import { createOperationHandler } from '../../../lib/http/chain.ts';
import { describeError, log } from '../../../lib/log.ts';
import { deleteAttachmentRoute } from '../../../lib/routes/attachments.ts';
import { AttachmentObjectsStore } from '../../../lib/store/attachment-objects.ts';
import { BUCKET_ENV_VAR } from '../../../lib/store/tables.ts';
import { attachmentCommands } from './commands.ts';

const commands = attachmentCommands({ objects: new AttachmentObjectsStore(requiredEnv(BUCKET_ENV_VAR)) });

export const handler = createOperationHandler(bindOperation(deleteAttachmentRoute, deleteAttachmentContract), writeChainDependencies, async ({ path, principal, commit }) => {
  const plan = await commands.delete(principal.organizationId, path.id);
  const response = await commit(async () => plan, () => ({ status: 204, empty: true }));
  // The record is gone: a body left behind is an orphan the sweeper removes (docs/attachments.md "Deleting").
  await commands.removeBody(plan.result).catch((error: unknown) => log('warn', 'attachment body left for the orphan sweep', { attachmentId: path.id, ...describeError(error) }));
  return response;
});
