import { writeChainDependencies } from '../../../lib/composition-writes.ts';
import { requiredEnv } from '../../../lib/config/env.ts';
import { uploadAttachmentContract } from '../../../lib/contracts/attachments/upload-attachment.ts';
import { bindOperation } from '../../../lib/contracts/operation.ts';
import { sniffContentType } from '../../../lib/domain/attachments/content-type.ts';
import { publicAttachment } from '../../../lib/domain/attachments/views.ts';
import { createOperationHandler } from '../../../lib/http/chain.ts';
import { parseMultipart } from '../../../lib/http/multipart.ts';
import { uploadAttachmentRoute } from '../../../lib/routes/attachments.ts';
import { AttachmentObjectsStore } from '../../../lib/store/attachment-objects.ts';
import { BUCKET_ENV_VAR } from '../../../lib/store/tables.ts';
import { attachmentCommands } from './commands.ts';

const commands = attachmentCommands({ objects: new AttachmentObjectsStore(requiredEnv(BUCKET_ENV_VAR)), sniff: sniffContentType, checksTargets: true });

export const handler = createOperationHandler(bindOperation(uploadAttachmentRoute, uploadAttachmentContract), { ...writeChainDependencies, parseMultipart }, async ({ body, principal, commit }) => {
  const plan = await commands.upload(principal.organizationId, principal.keyId, {
    target: { kind: body.TargetKind, id: body.TargetId },
    fileKind: body.FileKind ?? 'other',
    pageCount: body.PageCount ?? null,
    file: body.File,
  });
  return commit(async () => plan, (attachment) => ({ status: 200, json: publicAttachment(attachment) }));
});
