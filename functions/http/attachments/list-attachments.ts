import { chainDependencies } from '../../../lib/composition.ts';
import { cursorSecret } from '../../../lib/config/cursors.ts';
import { requiredEnv } from '../../../lib/config/env.ts';
import { listAttachmentsContract } from '../../../lib/contracts/attachments/list-attachments.ts';
import { AttachmentReads } from '../../../lib/domain/attachments/reads.ts';
import { publicAttachment } from '../../../lib/domain/attachments/views.ts';
import { CursorCodec } from '../../../lib/domain/pagination/cursor.ts';
import { createHttpHandler } from '../../../lib/http/chain.ts';
import { AttachmentsStore } from '../../../lib/store/attachments-store.ts';
import { TABLES } from '../../../lib/store/tables.ts';

const reads = new AttachmentReads({ attachments: new AttachmentsStore(requiredEnv(TABLES.inventory.envVar)) }, new CursorCodec(cursorSecret()));

export const handler = createHttpHandler(listAttachmentsContract, chainDependencies, async ({ query, principal }) => {
  const { targetKind, targetId, limit, cursor } = query;
  const target = targetKind !== undefined && targetId !== undefined ? { kind: targetKind, id: targetId } : undefined;
  const page = await reads.list(principal.organizationId, target, { limit, ...(cursor === undefined ? {} : { cursor }) });
  return { status: 200, json: { data: page.data.map(publicAttachment), page: page.page } };
});
