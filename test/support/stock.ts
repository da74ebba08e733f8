import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { EventEnvelope } from '../../lib/domain/events/types.ts';
import type { StockRecord } from '../../lib/domain/inventory/stock.ts';
import { stockRecordKey, sumQuantities } from '../../lib/domain/inventory/stock.ts';
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
