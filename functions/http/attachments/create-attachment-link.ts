import { writeChainDependencies } from '../../../lib/composition-writes.ts';
import { createAttachmentLinkContract } from '../../../lib/contracts/attachments/create-attachment-link.ts';
import { bindOperation } from '../../../lib/contracts/operation.ts';
import { publicAttachment } from '../../../lib/domain/attachments/views.ts';
import { createOperationHandler } from '../../../lib/http/chain.ts';
import { createAttachmentLinkRoute } from '../../../lib/routes/attachments.ts';
import { attachmentCommands } from './commands.ts';

const commands = attachmentCommands({ checksTargets: true });

export const handler = createOperationHandler(bindOperation(createAttachmentLinkRoute, createAttachmentLinkContract), writeChainDependencies, async ({ body, principal, commit }) =>
  commit(
    () => commands.link(principal.organizationId, principal.keyId, { target: { kind: body.targetKind, id: body.targetId }, url: body.url, title: body.title, fileKind: body.fileKind ?? 'other' }),
    (attachment) => ({ status: 201, json: publicAttachment(attachment), headers: { Location: `/v1/attachments/${attachment.id}` } }),
  ),
);
