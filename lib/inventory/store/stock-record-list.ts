import type { NativeAttributeValue } from '@aws-sdk/lib-dynamodb';
import type { StockRecord } from '../domain/stock.ts';
import type { PageOf } from '../../platform/pagination/page.ts';
import { batchGet, readPageInOneQuery, type ItemFilter } from '../../platform/dynamo/entity.ts';
import { inventoryListOf, inventoryRecordEntity } from './entities.ts';

/**
 * The stock-record list (docs/inventory.md "Reading inventory"). Its entries hold keys only
 * (lib/inventory/store/inventory-lists.ts), so a page is a consistent Query of entries, then a consistent
 * BatchGetItem of their records by id (100 keys a request, the requests of a page in parallel):
 * as read-after-write as the Query alone. Entries written as full copies of the record (schema
 * version 1, with `record`) are read the same way, by id: their copy may be stale.
 */

type Entry = Record<string, NativeAttributeValue>;
type Range = { lower: string; upper: string };

export interface StockRecordPageQuery {
  tableName: string;
  organizationId: string;
  range: Range;
  /** Read on the entries: what they hold besides the sort key (the lot). */
  entryFilter: ItemFilter | undefined;
  /** Only records whose quantity is not 0, decided on the records read (the entries do not hold it). */
  nonZero: boolean;
  /** The sort key of the last entry already served or examined (a cursor position); excluded. */
  after: string | undefined;
  limit: number;
  /** Entries a filtered page examines at most. */
  budget: number;
}

export async function readStockRecordPage(query: StockRecordPageQuery): Promise<PageOf<StockRecord>> {
  if (query.nonZero) return readNonZeroPage(query);
  const budget = query.entryFilter === undefined ? query.limit + 1 : Math.max(query.limit + 1, query.budget);
  const entries = await readEntries(query, query.after, query.limit, budget);
  const records = await recordsOf(query, entries.items);
  const items = entries.items.flatMap((entry) => records.get(entry.id as string) ?? []);
  return { items, ...(entries.last === undefined ? {} : { last: entries.last }), more: entries.more };
}

/**
 * A `nonZero` page, read in steps of entries and their records until `limit` + 1 records hold
 * stock (the page is full and more follow) or `budget` entries are examined (a short page, maybe
 * empty, with the position of the last entry examined to go on from). Served as a filtered page
 * of entries would be: `last` is the last record served when more matched, otherwise the last
 * entry examined.
 */
async function readNonZeroPage(query: StockRecordPageQuery): Promise<PageOf<StockRecord>> {
  const budget = Math.max(query.limit + 1, query.budget);
  const matches: Array<{ sortKey: string; record: StockRecord }> = [];
  let examined = 0;
  let position = query.after;
  for (;;) {
    const step = Math.min(budget - examined, nextStep(query.limit, examined, matches.length));
    const entries = await readEntries(query, position, step, step);
    const records = await recordsOf(query, entries.items);
    for (const entry of entries.items) {
      const record = records.get(entry.id as string);
      if (record !== undefined && record.onHand !== 0) matches.push({ sortKey: entry.sk as string, record });
    }
    examined += step;
    if (matches.length > query.limit) {
      const served = matches.slice(0, query.limit);
      return { items: served.map(({ record }) => record), last: served.at(-1)?.sortKey as string, more: true };
    }
    const items = matches.map(({ record }) => record);
    if (!entries.more) return { items, ...(matches.length === 0 ? {} : { last: matches.at(-1)?.sortKey as string }), more: false };
    if (examined >= budget || entries.last === undefined) return { items, ...(entries.last === undefined ? {} : { last: entries.last }), more: true };
    position = entries.last;
  }
}

/**
 * Entries the next step reads: first `limit` + 1; then what the share of matches so far says the
 * missing ones need, and at least as many as all before (three times as many while none matched),
 * so a page takes few steps even over long runs of records at 0.
 */
function nextStep(limit: number, examined: number, matched: number): number {
  if (examined === 0) return limit + 1;
  if (matched === 0) return 3 * examined;
  const missing = limit + 1 - matched;
  return Math.max(examined, Math.ceil((missing * examined * 1.25) / matched));
}

function readEntries(query: StockRecordPageQuery, after: string | undefined, limit: number, budget: number) {
  return readPageInOneQuery({
    tableName: query.tableName,
    partition: { name: 'pk', value: inventoryListOf(query.organizationId, 'stock-record') },
    sortKey: { name: 'sk', ...query.range },
    after,
    limit,
    budget,
    ...(query.entryFilter === undefined ? {} : { filter: query.entryFilter }),
  });
}

/** The records the entries name, by id. */
function recordsOf(query: StockRecordPageQuery, entries: Entry[]): Promise<Map<string, StockRecord>> {
  return stockRecordsByIds(
    query.tableName,
    query.organizationId,
    entries.map((entry) => entry.id as string),
  );
}

/** Stock records by id, absent ones left out: consistent BatchGetItems of 100 keys each, in parallel. */
export async function stockRecordsByIds(tableName: string, organizationId: string, ids: string[]): Promise<Map<string, StockRecord>> {
  if (ids.length === 0) return new Map();
  const items = await batchGet(
    tableName,
    ids.map((id) => inventoryRecordEntity.key({ organizationId, recordType: 'stock-record', id })),
  );
  return new Map(items.filter((item) => item.recordType === 'stock-record').map((item) => [item.id as string, item.record as StockRecord]));
}
