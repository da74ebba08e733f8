import { feedPages, importFile, type DomainEvent, type ImportJob, type InventoryClient } from '../../../../client/index.ts';

/**
 * Inventory for the client's end-to-end suites, made through the client itself: items and a
 * location by import, stock by a PO receipt. Ids come from the events feed (locations emit none).
 */

export const csv = (lines: string[]) => `${lines.join('\n')}\n`;

export interface SeededInventory {
  itemIds: Record<string, string>;
  /** The stock record of WIDGET at A1, filled by the PO receipt. */
  widgetStockRecordId: string;
  jobs: ImportJob[];
}

export async function importCsv(
  client: InventoryClient,
  kind: string,
  lines: string[],
  duplicateStrategy: 'skip' | 'update' | 'fail' = 'fail',
): Promise<ImportJob> {
  const { job } = await importFile(client, { kind, file: new File([csv(lines)], `${kind}.csv`), duplicateStrategy, initialDelayMs: 50, maxDelayMs: 250 });
  if (job.status !== 'succeeded') throw new Error(`${kind} import ended ${job.status}: ${JSON.stringify(job)}`);
  return job;
}

/** Every event of the organization so far, read to the tail. */
export async function allEvents(client: InventoryClient): Promise<DomainEvent[]> {
  const events: DomainEvent[] = [];
  for await (const page of feedPages(client, { follow: false, limit: 200 })) events.push(...page.events);
  return events;
}

export async function seedInventory(client: InventoryClient): Promise<SeededInventory> {
  const jobs = [
    await importCsv(client, 'items', ['sku,name,unit,reorderPoint', 'WIDGET,Widget,ea,10', 'GADGET,Gadget,ea,', 'SPRING,Spring,ea,']),
    await importCsv(client, 'locations', ['code,name,type', 'A1,Aisle 1,bin']),
    await importCsv(client, 'po-receipts', ['poNumber,sku,locationCode,quantity', 'PO-1,WIDGET,A1,100', 'PO-1,SPRING,A1,40']),
  ];
  const events = await allEvents(client);
  const itemIds: Record<string, string> = {};
  let widgetStockRecordId = '';
  for (const event of events) {
    if (event.type === 'item.created') itemIds[event.data.item.sku] = event.data.item.id;
    if (event.type === 'stock.changed' && event.data.sku === 'WIDGET') widgetStockRecordId = event.data.stockRecordId;
  }
  return { itemIds, widgetStockRecordId, jobs };
}

/** The id of a seeded item, which must exist. */
export function itemId(seeded: SeededInventory, sku: string): string {
  const id = seeded.itemIds[sku];
  if (id === undefined) throw new Error(`No item ${sku} was seeded`);
  return id;
}
