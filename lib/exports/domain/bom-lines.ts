import type { Bom, BomListFilter, BomSummary } from '../../boms/index.ts';
import type { Item } from '../../inventory/index.ts';
import type { PageOf } from '../../platform/pagination/page.ts';
import type { BomExportLines, ExportPage } from './sources.ts';

/**
 * The `boms` export: the current revision of each BOM as the `boms` import's rows (one per
 * component line, SKUs instead of ids), so the file imports again with `update` unchanged.
 */

export interface BomLinePorts {
  list(organizationId: string, filter: BomListFilter, after: string | undefined, limit: number): Promise<PageOf<BomSummary>>;
  get(organizationId: string, bomId: string): Promise<{ bom: Bom } | undefined>;
  getByCodes(organizationId: string, codes: Iterable<string>): Promise<Map<string, { record: Bom }>>;
  items(organizationId: string, ids: Iterable<string>): Promise<Map<string, Item>>;
}

/** BOMs per page: each may have up to 200 lines. */
const BOMS_PER_PAGE = 25;

export class BomLineExports implements BomExportLines {
  constructor(private readonly ports: BomLinePorts) {}

  async page(organizationId: string, filter: { bomCode?: string }, after: string | undefined, limit: number): Promise<ExportPage> {
    let boms: Bom[];
    let last: string | undefined;
    let more = false;
    if (filter.bomCode !== undefined) {
      // One BOM: the whole export is one page; the position marks it written.
      if (after !== undefined) return { rows: [], more: false };
      const found = (await this.ports.getByCodes(organizationId, [filter.bomCode])).get(filter.bomCode);
      boms = found && !found.record.archived ? [found.record] : [];
      last = 'done';
    } else {
      const page = await this.ports.list(organizationId, { includeArchived: false }, after, Math.min(limit, BOMS_PER_PAGE));
      const read = await Promise.all(page.items.map((summary) => this.ports.get(organizationId, summary.id)));
      boms = read.flatMap((entry) => (entry ? [entry.bom] : []));
      last = page.last;
      more = page.more;
    }
    const itemIds = new Set(boms.flatMap((bom) => [bom.targetItemId, ...bom.lines.map((line) => line.itemId)]));
    const items = itemIds.size === 0 ? new Map<string, Item>() : await this.ports.items(organizationId, itemIds);
    const sku = (id: string) => items.get(id)?.sku ?? null;
    const rows = boms.flatMap((bom) =>
      bom.lines.map((line) => ({
        bomCode: bom.code,
        name: bom.name,
        targetSku: sku(bom.targetItemId),
        componentSku: sku(line.itemId),
        quantity: line.quantity,
        unit: line.unit,
        scrapPercent: line.scrapPercent,
        notes: line.notes,
      })),
    );
    return { rows, ...(last === undefined ? {} : { last }), more };
  }
}
