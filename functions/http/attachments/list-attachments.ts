import { chainDependencies } from '../../../lib/composition.ts';
import { cursorKeys } from '../../../lib/config/cursors.ts';
import { requiredEnv } from '../../../lib/config/env.ts';
import { listAttachmentsContract } from '../../../lib/contracts/attachments/list-attachments.ts';
import { bindOperation } from '../../../lib/contracts/operation.ts';
import { AttachmentReads } from '../../../lib/domain/attachments/reads.ts';
import { publicAttachment } from '../../../lib/domain/attachments/views.ts';
import { CursorCodec } from '../../../lib/domain/pagination/cursor.ts';
import { createOperationHandler } from '../../../lib/http/chain.ts';
import { listAttachmentsRoute } from '../../../lib/routes/attachments.ts';
import { AttachmentsStore } from '../../../lib/store/attachments-store.ts';
import { TABLES } from '../../../lib/store/tables.ts';

const reads = new AttachmentReads({ attachments: new AttachmentsStore(requiredEnv(TABLES.inventory.envVar)) }, new CursorCodec(await cursorKeys()));

export const handler = createOperationHandler(bindOperation(listAttachmentsRoute, listAttachmentsContract), chainDependencies, async ({ query, principal }) => {
  const { targetKind, targetId, limit, cursor } = query;
  const target = targetKind !== undefined && targetId !== undefined ? { kind: targetKind, id: targetId } : undefined;
  const page = await reads.list(principal.organizationId, target, { limit, ...(cursor === undefined ? {} : { cursor }) });
  return { status: 200, json: { data: page.data.map(publicAttachment), page: page.page } };
});
