import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { EventEnvelope } from '../../lib/platform/events/types.ts';
import type { StockRecord } from '../../lib/inventory/domain/stock.ts';
import { stockRecordKey, sumQuantities } from '../../lib/inventory/domain/stock.ts';
import { quantityStates } from '../../lib/inventory/domain/availability.ts';
import { InventoryReads, type StockRecordView } from '../../lib/inventory/domain/reads.ts';
import { CursorCodec } from '../../lib/platform/pagination/cursor.ts';
import { InventoryReadStore } from '../../lib/inventory/store/inventory-reads.ts';
import { tableName } from './events.ts';
import { inventoryRecords } from './imports.ts';
import { schemaErrors } from './json-schema.ts';

/** Stock-flow test helpers on the local stack: stock records, the ledger invariant, event payloads. */

const SCHEMA_DIR = join(import.meta.dirname, '..', '..', 'events-schema');

/** The stock record at item × location × lot, which must exist. */
export async function stockAt(organizationId: string, itemId: string, locationId: string, lot: string | null): Promise<StockRecord> {
  const found = await inventoryRecords().getByNaturalKeys(organizationId, 'stock-record', [stockRecordKey(itemId, locationId, lot)]);
  const record = found.values().next().value?.record;
  if (!record) throw new Error(`No stock record of ${itemId} at ${locationId} in lot ${lot}`);
  return record;
}

/** Asserts the ledger invariant: the record's on-hand is the sum of its ledger entries; returns them. */
export async function expectLedgerMatches(organizationId: string, record: StockRecord) {
  const ledger = await inventoryRecords().movementsOf(organizationId, record.id);
  expect(sumQuantities(ledger.map((entry) => entry.quantity)), `ledger of ${record.id}`).toBe(record.onHand);
  return ledger;
}

const schemas = new Map<string, object>();

/** Asserts that every event validates against its schema in events-schema/. */
export function expectEventsMatchSchemas(events: readonly EventEnvelope[]): void {
  for (const event of events) {
    let schema = schemas.get(event.type);
    if (!schema) {
      schema = JSON.parse(readFileSync(join(SCHEMA_DIR, `${event.type}.schema.json`), 'utf8')) as object;
      schemas.set(event.type, schema);
    }
    expect(schemaErrors(schema, event), `${event.type} ${JSON.stringify(event.data)}`).toEqual([]);
  }
}

/**
 * Every stock record as `GET /v1/stock-records` lists it (its domain read and store, page after
 * page of `pageSize`, following the signed cursors), sorted by id.
 */
export async function listedStockRecords(organizationId: string, pageSize = 3): Promise<StockRecordView[]> {
  const reads = new InventoryReads(new InventoryReadStore(tableName('inventory')), new CursorCodec('test-cursor-secret-0123456789abcdef0123456789'));
  const listed: StockRecordView[] = [];
  let cursor: string | null = null;
  do {
    const page = await reads.stockRecords(organizationId, {}, { limit: pageSize, ...(cursor === null ? {} : { cursor }) });
    listed.push(...page.data);
    cursor = page.page.nextCursor;
  } while (cursor !== null);
  return listed.sort((a, b) => a.id.localeCompare(b.id));
}

/** The stock records a feed describes: each one as its last `stock.changed` left it, sorted by id. */
export function stockRecordsOfFeed(feed: readonly EventEnvelope[]): StockRecordView[] {
  const records = new Map<string, StockRecordView>();
  for (const event of feed) {
    if (event.type !== 'stock.changed') continue;
    const data = event.data as {
      stockRecordId: string;
      itemId: string;
      sku: string;
      locationId: string;
      locationCode: string;
      lot: string | null;
      quantity: number;
      reserved?: number;
    };
    // `reserved` once stock.changed carries it; 0 before, as the reads show it.
    const states = quantityStates({ onHand: data.quantity, ...(data.reserved === undefined ? {} : { reserved: data.reserved }) });
    records.set(data.stockRecordId, {
      id: data.stockRecordId,
      itemId: data.itemId,
      sku: data.sku,
      locationId: data.locationId,
      locationCode: data.locationCode,
      lot: data.lot,
      quantity: data.quantity,
      ...states,
      updatedAt: event.occurredAt,
    });
  }
  return [...records.values()].sort((a, b) => a.id.localeCompare(b.id));
}
