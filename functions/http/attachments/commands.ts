import { requiredEnv } from '../../../lib/config/env.ts';
import type { AttachmentObjects } from '../../../lib/domain/attachments/attachment.ts';
import { AttachmentCommands } from '../../../lib/domain/attachments/commands.ts';
import { AttachmentTargetsStore } from '../../../lib/store/attachment-targets.ts';
import { AttachmentsStore } from '../../../lib/store/attachments-store.ts';
import { BomsStore } from '../../../lib/store/boms-store.ts';
import { ImportJobsStore } from '../../../lib/store/import-jobs-store.ts';
import { InventoryStore } from '../../../lib/store/inventory-store.ts';
import { StockStore } from '../../../lib/store/stock-store.ts';
import { TABLES } from '../../../lib/store/tables.ts';

/**
 * The attachment commands a write function builds once, at cold start. Only the file routes pass
 * the object store, and only the upload the content sniffer, so no function bundles what it never
 * calls (the S3 client, file-type).
 */
export function attachmentCommands(objects: Pick<AttachmentObjects, 'put' | 'delete'> | undefined, sniff?: (content: Buffer) => Promise<string>) {
  const table = requiredEnv(TABLES.inventory.envVar);
  const unused = () => Promise.reject(new Error('This function has no access to attachment bodies'));
  return new AttachmentCommands({
    attachments: new AttachmentsStore(table),
    objects: objects ?? { put: unused, delete: unused },
    ...(sniff ? { sniff } : {}),
    targets: new AttachmentTargetsStore({ inventory: new InventoryStore(table), boms: new BomsStore(table), importJobs: new ImportJobsStore(table), stock: new StockStore(table) }),
  });
}
