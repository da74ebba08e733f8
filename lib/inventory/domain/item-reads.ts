import { NotFoundError } from '../../platform/core/errors.ts';
import type { CursorCodec } from '../../platform/pagination/cursor.ts';
import { cursorPage, type ListPage } from '../../platform/pagination/page.ts';
import type { ItemStock } from './stock.ts';
import { itemTotals, type QuantityStates } from './availability.ts';
import type { Item, RecordStatus } from './item.ts';
import type { InventoryReadStorage, ItemFilter } from './reads.ts';

/**
 * `GET /v1/items` and `GET /v1/items/{id}` (docs/inventory.md "Reading inventory"): each item with
 * its totals across all its stock records, `onHand`, `reserved` and `available`, from the item's
 * stored total (the item-stock item kept in step with its records in every stock write). Apart
 * from ./reads.ts, so only the item reads' functions carry the totals' reads.
 */

/** An item as the reads answer it: the item, and its totals across all its stock records. */
export type ItemView = Omit<Item, 'status'> & { status: RecordStatus; version: number } & QuantityStates;

/** An item as stored and its stored total (none when it never held stock). */
export interface ItemWithStock {
  item: Item;
  stock: ItemStock | undefined;
  /** The stored item's version (older records: 1). */
  version: number;
}

/** Items' totals (the item-stock items beside them). */
export interface ItemTotalsStorage {
  /** The items' stored totals by item id; an item that never held stock has none. */
  itemStocks(organizationId: string, itemIds: readonly string[]): Promise<Map<string, ItemStock>>;
  /** The item and its total, read together (one BatchGetItem); undefined when there is no such item. */
  itemWithStock(organizationId: string, itemId: string): Promise<ItemWithStock | undefined>;
}

/** The item with its totals: `stock` is its stored total, absent (all 0) when it never held stock. */
export function itemView(item: Item, stock: ItemStock | undefined, version = 1): ItemView {
  const { id, sku, name, unit, description, category, barcode, reorderPoint, trackingMode, createdAt, updatedAt } = item;
  const status = item.status ?? 'active';
  return { id, sku, name, unit, description, category, barcode, reorderPoint, trackingMode, status, version, ...itemTotals(stock), createdAt, updatedAt };
}

export class ItemReads {
  /** `cursors` is needed only by the list. */
  constructor(
    private readonly storage: Pick<InventoryReadStorage, 'items'>,
    private readonly totals: ItemTotalsStorage,
    private readonly cursors?: CursorCodec,
  ) {}

  /** The item and its total, read together (one BatchGetItem). */
  async item(organizationId: string, id: string): Promise<ItemView> {
    const found = await this.totals.itemWithStock(organizationId, id);
    if (found === undefined) throw new NotFoundError('inventory', 'No item with this id.');
    return itemView(found.item, found.stock, found.version);
  }

  /** A page of items (one Query), then their totals (one BatchGetItem per 100, in parallel; none for an empty page). */
  /** Archived items only with `includeArchived`. */
  async items(
    organizationId: string,
    filter: ItemFilter & { includeArchived?: boolean | undefined },
    query: { limit: number; cursor?: string },
  ): Promise<ListPage<ItemView>> {
    if (!this.cursors) throw new Error('Paging items needs a cursor codec');
    const { includeArchived, ...stored } = filter;
    return cursorPage(this.cursors, { organizationId, endpoint: 'GET /v1/items', filters: { ...filter } }, query.cursor, async (after) => {
      const page = await this.storage.items(organizationId, { ...stored, activeOnly: includeArchived !== true }, after, query.limit);
      const totals =
        page.items.length === 0
          ? new Map<string, ItemStock>()
          : await this.totals.itemStocks(
              organizationId,
              page.items.map((item) => item.id),
            );
      return { ...page, items: page.items.map((item) => itemView(item, totals.get(item.id), page.versions?.get(item.id) ?? 1)) };
    });
  }
}
