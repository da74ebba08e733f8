import type { Context } from 'aws-lambda';
import { requiredEnv } from '../../lib/platform/config/env.ts';
import { ATTACHMENT_OBJECT_PREFIX } from '../../lib/attachments/domain/attachment.ts';
import { sweepOrphanObjects } from '../../lib/attachments/domain/sweep-orphans.ts';
import { describeError, log, startInvocation } from '../../lib/platform/observability/log.ts';
import { AttachmentObjectListing } from '../../lib/attachments/store/attachment-object-listing.ts';
import { AttachmentObjectsStore } from '../../lib/attachments/store/attachment-objects.ts';
import { AttachmentsStore } from '../../lib/attachments/store/attachments-store.ts';
import { SweepPositionsStore } from '../../lib/attachments/store/sweep-positions.ts';
import { BUCKET_ENV_VAR, TABLES } from '../../lib/platform/storage/tables.ts';

const objects = new AttachmentObjectsStore(requiredEnv(BUCKET_ENV_VAR));
const listing = new AttachmentObjectListing(requiredEnv(BUCKET_ENV_VAR));
const attachments = new AttachmentsStore(requiredEnv(TABLES.inventory.envVar));
const position = new SweepPositionsStore(requiredEnv(TABLES.inventory.envVar)).of('attachment-objects');
/** Left of the function's timeout for the last lookups and deletes and saving the position. */
const SETTLE_MARGIN_MS = 30_000;

/** Deletes attachment bodies no record names (docs/attachments.md "Deleting"). */
export const handler = async (_event?: unknown, context?: Context): Promise<void> => {
  startInvocation(context);
  const swept = await sweepOrphanObjects(
    {
      listed: (startAfter) => listing.listed(ATTACHMENT_OBJECT_PREFIX, { startAfter }),
      existing: (organizationId, ids) => attachments.existing(organizationId, ids),
      delete: (key) => objects.delete(key),
      onError: (key, error) => log('warn', 'orphan sweep step failed; a later run retries it', { key, ...describeError(error) }),
      position,
    },
    new Date(),
    { msLeft: () => (context ? context.getRemainingTimeInMillis() - SETTLE_MARGIN_MS : Infinity) },
  );
  if (swept.deleted > 0 || swept.errors > 0 || swept.stoppedAfter !== null) log('info', 'orphan attachment bodies swept', { ...swept });
};
