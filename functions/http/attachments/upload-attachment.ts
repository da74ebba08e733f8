import { writeChainDependencies } from '../../../lib/app/composition-writes.ts';
import { requiredEnv } from '../../../lib/platform/config/env.ts';
import { uploadAttachmentContract } from '../../../lib/attachments/contracts/upload-attachment.ts';
import { bindOperation } from '../../../lib/platform/contracts/operation.ts';
import { sniffContentType } from '../../../lib/attachments/domain/content-type.ts';
import { publicAttachment } from '../../../lib/attachments/domain/views.ts';
import { createOperationHandler } from '../../../lib/platform/http/chain.ts';
import { parseMultipart } from '../../../lib/platform/http/multipart.ts';
import { uploadAttachmentRoute } from '../../../lib/attachments/routes.ts';
import { AttachmentObjectsStore } from '../../../lib/attachments/store/attachment-objects.ts';
import { BUCKET_ENV_VAR } from '../../../lib/platform/storage/tables.ts';
import { attachmentCommands } from './commands.ts';

const commands = attachmentCommands({ objects: new AttachmentObjectsStore(requiredEnv(BUCKET_ENV_VAR)), sniff: sniffContentType, checksTargets: true });

export const handler = createOperationHandler(
  bindOperation(uploadAttachmentRoute, uploadAttachmentContract),
  { ...writeChainDependencies, parseMultipart },
  async ({ body, principal, commit }) => {
    const plan = await commands.upload(principal.organizationId, principal.keyId, {
      target: { kind: body.TargetKind, id: body.TargetId },
      fileKind: body.FileKind ?? 'other',
      pageCount: body.PageCount ?? null,
      file: body.File,
    });
    return commit(
      async () => plan,
      (attachment) => ({ status: 200, json: publicAttachment(attachment) }),
    );
  },
);
