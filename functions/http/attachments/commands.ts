import { requiredEnv } from '../../../lib/platform/config/env.ts';
import type { AttachmentObjects } from '../../../lib/attachments/domain/attachment.ts';
import { AttachmentCommands } from '../../../lib/attachments/domain/commands.ts';
import { AttachmentTargetsStore } from '../../../lib/attachments/store/attachment-targets.ts';
import { AttachmentsStore } from '../../../lib/attachments/store/attachments-store.ts';
import { TABLES } from '../../../lib/platform/storage/tables.ts';

/**
 * The attachment commands a write function builds once, at cold start. Only the file routes pass
 * the object store, only the upload the content sniffer, and only the routes that attach (upload,
 * link) check targets, so no function bundles what it never calls (file-type, the target reads).
 */
export function attachmentCommands(options: {
  objects?: Pick<AttachmentObjects, 'put' | 'delete'>;
  sniff?: (content: Buffer) => Promise<string>;
  checksTargets?: boolean;
}) {
  const table = requiredEnv(TABLES.inventory.envVar);
  const unused = (what: string) => () => Promise.reject(new Error(`This function has no access to ${what}`));
  return new AttachmentCommands({
    attachments: new AttachmentsStore(table),
    objects: options.objects ?? { put: unused('attachment bodies'), delete: unused('attachment bodies') },
    ...(options.sniff ? { sniff: options.sniff } : {}),
    targets: options.checksTargets ? new AttachmentTargetsStore(table) : { exists: unused('attachment targets') },
  });
}
