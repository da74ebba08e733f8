import type { AttachmentTarget, AttachmentTargets } from '../domain/attachments/attachment.ts';
import type { BomsStore } from './boms-store.ts';
import type { ImportJobsStore } from './import-jobs-store.ts';
import type { InventoryStore } from './inventory-store.ts';
import type { StockStore } from './stock-store.ts';

/**
 * Whether an attachment's target is a record of the organization (docs/attachments.md "Targets").
 * A purchase order is named by the receipt an import recorded (`rcp_…`), a count by its `cnt_…`.
 */
export class AttachmentTargetsStore implements AttachmentTargets {
  constructor(
    private readonly stores: { inventory: InventoryStore; boms: BomsStore; importJobs: ImportJobsStore; stock: StockStore },
  ) {}

  async exists(organizationId: string, target: AttachmentTarget): Promise<boolean> {
    const { inventory, boms, importJobs, stock } = this.stores;
    switch (target.kind) {
      case 'item':
      case 'location':
      case 'stock-record':
        return (await inventory.getById(organizationId, target.kind, target.id)) !== undefined;
      case 'bom':
        return (await boms.get(organizationId, target.id)) !== undefined;
      case 'bom-revision':
      case 'build':
        // One pointer table holds both; the id's prefix says which kind it must be.
        return target.id.startsWith(target.kind === 'build' ? 'bld_' : 'rev_') && boms.pointerExists(organizationId, target.id);
      case 'import-job':
        return (await importJobs.get(organizationId, target.id)) !== undefined;
      case 'purchase-order':
      case 'count':
        return target.id.startsWith(target.kind === 'count' ? 'cnt_' : 'rcp_') && stock.documentExists(organizationId, target.id);
    }
  }
}
