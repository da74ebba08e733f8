import type { Context } from 'aws-lambda';
import { requiredEnv } from '../../lib/config/env.ts';
import { ATTACHMENT_OBJECT_PREFIX } from '../../lib/domain/attachments/attachment.ts';
import { sweepOrphanObjects } from '../../lib/domain/attachments/sweep-orphans.ts';
import { describeError, log, startInvocation } from '../../lib/log.ts';
import { AttachmentObjectListing } from '../../lib/store/attachment-object-listing.ts';
import { AttachmentObjectsStore } from '../../lib/store/attachment-objects.ts';
import { AttachmentsStore } from '../../lib/store/attachments-store.ts';
import { BUCKET_ENV_VAR, TABLES } from '../../lib/store/tables.ts';

const objects = new AttachmentObjectsStore(requiredEnv(BUCKET_ENV_VAR));
const listing = new AttachmentObjectListing(requiredEnv(BUCKET_ENV_VAR));
const attachments = new AttachmentsStore(requiredEnv(TABLES.inventory.envVar));

/** Deletes attachment bodies no record names (docs/attachments.md "Deleting"). */
export const handler = async (_event?: unknown, context?: Context): Promise<void> => {
  startInvocation(context);
  const swept = await sweepOrphanObjects(
    {
      listed: () => listing.listed(ATTACHMENT_OBJECT_PREFIX),
      existing: (organizationId, ids) => attachments.existing(organizationId, ids),
      delete: (key) => objects.delete(key),
      onError: (key, error) => log('warn', 'orphan attachment body not deleted this time', { key, ...describeError(error) }),
    },
    new Date(),
  );
  if (swept.deleted > 0 || swept.errors > 0) log('info', 'orphan attachment bodies swept', { ...swept });
};
