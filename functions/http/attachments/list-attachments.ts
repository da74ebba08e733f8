import { chainDependencies } from '../../../lib/app/composition.ts';
import { cursorKeys } from '../../../lib/platform/config/cursors.ts';
import { requiredEnv } from '../../../lib/platform/config/env.ts';
import { listAttachmentsContract } from '../../../lib/attachments/contracts/list-attachments.ts';
import { bindOperation } from '../../../lib/platform/contracts/operation.ts';
import { AttachmentReads } from '../../../lib/attachments/domain/reads.ts';
import { publicAttachment } from '../../../lib/attachments/domain/views.ts';
import { CursorCodec } from '../../../lib/platform/pagination/cursor.ts';
import { createOperationHandler } from '../../../lib/platform/http/chain.ts';
import { listAttachmentsRoute } from '../../../lib/attachments/routes.ts';
import { AttachmentsStore } from '../../../lib/attachments/store/attachments-store.ts';
import { TABLES } from '../../../lib/platform/storage/tables.ts';

const reads = new AttachmentReads({ attachments: new AttachmentsStore(requiredEnv(TABLES.inventory.envVar)) }, new CursorCodec(await cursorKeys()));

export const handler = createOperationHandler(bindOperation(listAttachmentsRoute, listAttachmentsContract), chainDependencies, async ({ query, principal }) => {
  const { targetKind, targetId, limit, cursor } = query;
  const target = targetKind !== undefined && targetId !== undefined ? { kind: targetKind, id: targetId } : undefined;
  const page = await reads.list(principal.organizationId, target, { limit, ...(cursor === undefined ? {} : { cursor }) });
  return { status: 200, json: { data: page.data.map(publicAttachment), page: page.page } };
});
