import * as z from '../../platform/contracts/zod.ts';
import { listAttachmentsQuery } from './attachments.ts';
import { defineOperation } from '../../platform/contracts/operation.ts';
import { cursorParam, limitParam } from '../../platform/contracts/primitives.ts';

/** GET /v1/attachments (docs/attachments.md "Listing"): `targetKind` and `targetId` go together. */
export const listAttachmentsContract = defineOperation({
  operationId: 'listAttachments',
  request: {
    query: z.strictObject({ ...listAttachmentsQuery, limit: limitParam, cursor: cursorParam }).check(
      z.superRefine((query: { targetKind?: string | undefined; targetId?: string | undefined }, context) => {
        if ((query.targetKind === undefined) === (query.targetId === undefined)) return;
        const missing = query.targetKind === undefined ? 'targetKind' : 'targetId';
        context.addIssue({ code: 'custom', path: [missing], input: undefined, message: 'Give targetKind and targetId together, or neither.' });
      }),
    ),
  },
});
