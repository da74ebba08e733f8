import { writeChainDependencies } from '../../../lib/app/composition-writes.ts';
import { createAttachmentLinkContract } from '../../../lib/attachments/contracts/create-attachment-link.ts';
import { bindOperation } from '../../../lib/platform/contracts/operation.ts';
import { publicAttachment } from '../../../lib/attachments/domain/views.ts';
import { createOperationHandler } from '../../../lib/platform/http/chain.ts';
import { createAttachmentLinkRoute } from '../../../lib/attachments/routes.ts';
import { attachmentCommands } from './commands.ts';

const commands = attachmentCommands({ checksTargets: true });

export const handler = createOperationHandler(
  bindOperation(createAttachmentLinkRoute, createAttachmentLinkContract),
  writeChainDependencies,
  async ({ body, principal, commit }) =>
    commit(
      () =>
        commands.link(principal.organizationId, principal.keyId, {
          target: { kind: body.targetKind, id: body.targetId },
          url: body.url,
          title: body.title,
          fileKind: body.fileKind ?? 'other',
        }),
      (attachment) => ({ status: 201, json: publicAttachment(attachment), headers: { Location: `/v1/attachments/${attachment.id}` } }),
    ),
);
