import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../lib/platform/core/errors.ts';
import type { Item } from '../../../lib/inventory/domain/item.ts';
import type { Location } from '../../../lib/inventory/domain/location.ts';
import type { VersionedRecord } from '../../../lib/inventory/domain/records.ts';
import { stockRecordKey, type StockRecord } from '../../../lib/inventory/domain/stock.ts';
import { adjustmentSpec, type AdjustmentInput, type AdjustmentLineInput } from '../../../lib/stock/domain/changes/adjust.ts';
import {
  RecordsFirstError,
  StockChangeCommand,
  type ChangeLineInput,
  type StockChangeKindSpec,
  type StockChangeWrite,
} from '../../../lib/stock/domain/changes/command.ts';
import type { StockChange } from '../../../lib/stock/domain/changes/change.ts';
import { recordsOf } from '../../../lib/stock/domain/changes/references.ts';
import { AlreadyAppliedError, InsufficientStockError, QuantityStaleError } from '../../../lib/stock/domain/changes/errors.ts';
import { adjustmentClaimKey } from '../../../lib/stock/domain/claims.ts';
import type { ItemStock, StockEntry } from '../../../lib/stock/domain/records.ts';
import { A1, B1, GADGET, NOW, RESIN, STORED_AT, WIDGET } from '../../support/stock-world.ts';

/**
 * The JSON stock adjustment's decisions (docs/inventory.md "Writing stock over JSON") on in-memory
 * stored stock: compare-and-set against the stored on-hand, all lines or none, every refused line
 * named at once, the import kind's natural-key claims, the plan's writes and events.
 */

type Write = StockChangeWrite | { op: 'create-change'; change: StockChange };

class Stored {
  readonly records = new Map<string, VersionedRecord<StockRecord>>();
  readonly totals = new Map<string, VersionedRecord<ItemStock>>();
  readonly claims = new Map<string, VersionedRecord<StockEntry>>();
  private readonly items = [WIDGET, RESIN, GADGET];
  private readonly locations = [A1, B1];

  stock(item: Item, location: Location, onHand: number, lot: string | null = null): StockRecord {
    const record: StockRecord = {
      id: `stk_${item.sku}_${location.code}${lot ?? ''}`,
      itemId: item.id,
      sku: item.sku,
      locationId: location.id,
      locationCode: location.code,
      lot,
      onHand,
      createdAt: STORED_AT,
      updatedAt: STORED_AT,
    };
    this.records.set(stockRecordKey(item.id, location.id, lot), { record, version: 3 });
    const total = this.totals.get(item.id)?.record.onHand ?? 0;
    this.totals.set(item.id, { record: { itemId: item.id, onHand: total + onHand, trackingMode: item.trackingMode }, version: 2 });
    return record;
  }

  command(maxWrites = 96): StockChangeCommand<AdjustmentInput, Write> {
    return this.commandOf(adjustmentSpec, maxWrites);
  }

  commandOf<Input extends { lines: ChangeLineInput[] }>(spec: StockChangeKindSpec<Input>, maxWrites = 96): StockChangeCommand<Input, Write> {
    const byKey = <T>(list: T[], key: (record: T) => string, wanted: Iterable<string>) =>
      new Map([...wanted].flatMap((value) => list.filter((record) => key(record) === value).map((record) => [value, record] as const)));
    const read = <T>(map: Map<string, T>, keys: Iterable<string>) =>
      new Map([...keys].flatMap((key) => (map.has(key) ? [[key, map.get(key) as T] as const] : [])));
    return new StockChangeCommand<Input, Write>(
      {
        stock: {
          getByNaturalKeys: async (_organizationId, entity, keys) => {
            if (entity === 'stock-record') return read(this.records, keys);
            if (entity === 'item-stock') return read(this.totals, keys);
            if (entity === 'stock-entry') return read(this.claims, keys);
            return new Map();
          },
          getItemsByIds: async (_organizationId, ids) => byKey(this.items, (item) => item.id, ids),
          stockRecordsAt: async () => [],
          writesOf: (_organizationId, write) => [write],
        },
        reads: {
          references: async (_organizationId, wanted) => ({
            itemsBySku: byKey(this.items, (item) => item.sku, wanted.skus),
            itemsById: byKey(this.items, (item) => item.id, wanted.itemIds),
            locationsByCode: byKey(this.locations, (location) => location.code, wanted.codes),
            locationsById: byKey(this.locations, (location) => location.id, wanted.locationIds),
            claims: recordsOf(read(this.claims, wanted.claimKeys)),
          }),
          stock: async (_organizationId, wanted) => ({
            records: read(this.records, wanted.recordKeys),
            totals: read(this.totals, wanted.itemIds),
            claims: recordsOf(read(this.claims, wanted.claimKeys)),
          }),
        },

        changes: { createWrite: (_organizationId, change) => ({ op: 'create-change', change }) },
        maxWrites,
        clock: () => new Date(NOW),
      },
      spec,
    );
  }
}

const line = (overrides: Partial<AdjustmentLineInput>): AdjustmentLineInput => ({
  sku: WIDGET.sku,
  locationCode: A1.code,
  lot: null,
  quantityDelta: -1,
  expectedQuantity: null,
  ...overrides,
});
const adjustment = (...lines: AdjustmentLineInput[]): AdjustmentInput => ({ reference: 'ORDER-1001', reason: 'sale', lines });
const ORG = 'org_json';

describe('POST /v1/stock/adjustments: the decision', () => {
  it('applies every line at its expected quantity: the records, totals, claims and change written, events in line order', async () => {
    // Prepare
    const stored = new Stored();
    const widget = stored.stock(WIDGET, A1, 10);
    stored.stock(GADGET, B1, 4);

    // Act
    const plan = await stored
      .command()
      .apply(
        ORG,
        adjustment(
          line({ quantityDelta: -3, expectedQuantity: 10 }),
          line({ itemId: GADGET.id, sku: undefined, locationId: B1.id, locationCode: undefined, quantityDelta: 2, expectedQuantity: 4 }),
        ),
      );

    // Assess
    expect(plan.result.lines).toEqual([
      {
        line: 0,
        movementId: expect.stringMatching(/^mov_/),
        stockRecordId: widget.id,
        itemId: WIDGET.id,
        sku: 'WIDGET',
        locationId: A1.id,
        locationCode: 'A1',
        lot: null,
        previousQuantity: 10,
        quantity: 7,
        delta: -3,
        reserved: 0,
        available: 7,
      },
      {
        line: 1,
        movementId: expect.stringMatching(/^mov_/),
        stockRecordId: 'stk_GADGET_B1',
        itemId: GADGET.id,
        sku: 'GADGET',
        locationId: B1.id,
        locationCode: 'B1',
        lot: null,
        previousQuantity: 4,
        quantity: 6,
        delta: 2,
        reserved: 0,
        available: 6,
      },
    ]);
    expect(plan.result).toMatchObject({ id: expect.stringMatching(/^chg_/), kind: 'adjustment', reference: 'ORDER-1001', reason: 'sale', occurredAt: NOW });
    expect(plan.events.map((event) => event.type)).toEqual(['movement.created', 'stock.changed', 'movement.created', 'stock.changed']);
    const ops = plan.writes.map((write) => write.op);
    expect(ops.filter((op) => op === 'update')).toHaveLength(2);
    expect(ops.filter((op) => op === 'put-item-stock')).toHaveLength(2);
    expect(ops.filter((op) => op === 'record-movement')).toHaveLength(2);
    const claims = plan.writes.flatMap((write) => (write.op === 'claim-entry' ? [write.entry.key] : []));
    expect(claims.sort()).toEqual([adjustmentClaimKey('ORDER-1001', 'GADGET', 'B1', null), adjustmentClaimKey('ORDER-1001', 'WIDGET', 'A1', null)].sort());
    expect(plan.writes.at(-1)).toEqual({ op: 'create-change', change: plan.result });
    expect(plan.audit).toMatchObject({ kind: 'stock.adjusted', target: { kind: 'stock-change', id: plan.result.id } });
  });

  it('refuses with every stale line and its current quantity; null opts a line out; no record counts as 0', async () => {
    // Prepare
    const stored = new Stored();
    const widget = stored.stock(WIDGET, A1, 10);

    // Act
    const refused = await stored
      .command()
      .apply(
        ORG,
        adjustment(
          line({ expectedQuantity: 9 }),
          line({ locationCode: B1.code, quantityDelta: 5, expectedQuantity: 0 }),
          line({ sku: GADGET.sku, quantityDelta: 5, expectedQuantity: 2 }),
          line({ sku: RESIN.sku, lot: 'L1', quantityDelta: 1, expectedQuantity: null }),
        ),
      )
      .catch((error: unknown) => error);

    // Assess
    expect(refused).toBeInstanceOf(QuantityStaleError);
    expect((refused as QuantityStaleError).extensions.lines).toEqual([
      { line: 0, stockRecordId: widget.id, expectedQuantity: 9, currentQuantity: 10 },
      { line: 2, stockRecordId: null, expectedQuantity: 2, currentQuantity: 0 },
    ]);
  });

  it('applies lines on one record in order, and refuses with every short line and what it had available', async () => {
    // Prepare
    const stored = new Stored();
    stored.stock(WIDGET, A1, 3);
    stored.stock(GADGET, A1, 1);

    // Act
    const inOrder = await stored
      .command()
      .apply(ORG, adjustment(line({ quantityDelta: 5, expectedQuantity: 3 }), line({ quantityDelta: -7, expectedQuantity: 3 })));
    const short = await stored
      .command()
      .apply(ORG, adjustment(line({ quantityDelta: -2 }), line({ quantityDelta: -2 }), line({ sku: GADGET.sku, quantityDelta: -4 })))
      .catch((error: unknown) => error);

    // Assess: 3 + 5 - 7 = 1, one claim for the two lines of one natural key
    expect(inOrder.result.lines.map(({ previousQuantity, quantity }) => [previousQuantity, quantity])).toEqual([
      [3, 8],
      [8, 1],
    ]);
    expect(inOrder.writes.filter((write) => write.op === 'claim-entry')).toHaveLength(1);
    expect(short).toBeInstanceOf(InsufficientStockError);
    expect((short as InsufficientStockError).extensions.lines).toEqual([
      { line: 1, stockRecordId: 'stk_WIDGET_A1', available: 1, requested: 2 },
      { line: 2, stockRecordId: 'stk_GADGET_A1', available: 1, requested: 4 },
    ]);
  });

  it('refuses a line whose natural key an import or an earlier request applied, naming who applied it', async () => {
    // Prepare
    const stored = new Stored();
    stored.stock(WIDGET, A1, 10);
    const key = adjustmentClaimKey('ORDER-1001', 'WIDGET', 'A1', null);
    stored.claims.set(key, { record: { key, jobId: 'imp_earlier', movementIds: ['mov_1'], appliedAt: STORED_AT }, version: 1 });

    // Act
    const refused = await stored
      .command()
      .apply(ORG, adjustment(line({ sku: GADGET.sku, quantityDelta: 1 }), line({})))
      .catch((error: unknown) => error);

    // Assess
    expect(refused).toBeInstanceOf(AlreadyAppliedError);
    expect((refused as AlreadyAppliedError).extensions.lines).toEqual([{ line: 1, appliedBy: 'imp_earlier' }]);
  });

  it('answers 400 with a pointer per unknown item or location and per lot-rule breach', async () => {
    // Prepare
    const stored = new Stored();

    // Act
    const unknown = await stored
      .command()
      .apply(ORG, adjustment(line({ sku: 'NOPE' }), line({ locationCode: undefined, locationId: 'loc_nope' })))
      .catch((error: unknown) => error);
    const lots = await stored
      .command()
      .apply(ORG, adjustment(line({ lot: 'L1' }), line({ sku: RESIN.sku })))
      .catch((error: unknown) => error);

    // Assess
    expect(unknown).toBeInstanceOf(ValidationError);
    expect((unknown as ValidationError).errors.map(({ pointer, code }) => [pointer, code])).toEqual([
      ['/lines/0/sku', 'unknown-item'],
      ['/lines/1/locationId', 'unknown-location'],
    ]);
    expect((lots as ValidationError).errors.map(({ pointer, code }) => [pointer, code])).toEqual([
      ['/lines/0/lot', 'lot-not-allowed'],
      ['/lines/1/lot', 'lot-required'],
    ]);
  });

  it('creates the record of a place with no stock, expected at 0', async () => {
    // Act
    const plan = await new Stored().command().apply(ORG, adjustment(line({ sku: RESIN.sku, lot: 'L7', quantityDelta: 4, expectedQuantity: 0 })));

    // Assess
    expect(plan.result.lines[0]).toMatchObject({ previousQuantity: 0, quantity: 4, delta: 4, lot: 'L7', stockRecordId: expect.stringMatching(/^stk_/) });
    expect(plan.writes.filter((write) => write.op === 'create')).toHaveLength(1);
  });

  it('asks for the records it creates first, at 0, when they do not fit its transaction; decided again, their first stock.changed says the change created them', async () => {
    // Prepare: 3 new lots, room for 10 writes (3 creations of 3 + 3 movements + 3 totals… do not fit)
    const stored = new Stored();
    const lines = ['L1', 'L2', 'L3'].map((lot) => line({ sku: RESIN.sku, lot, quantityDelta: 2, expectedQuantity: 0 }));

    // Act
    const refused = await stored
      .command(10)
      .apply(ORG, adjustment(...lines))
      .catch((error: unknown) => error);
    const records = (refused as RecordsFirstError).records;
    for (const record of records) stored.records.set(stockRecordKey(record.itemId, record.locationId, record.lot), { record, version: 1 });
    const plan = await stored.command(10).apply(ORG, adjustment(...lines), new Set(records.map((record) => record.id)));

    // Assess
    expect(refused).toBeInstanceOf(RecordsFirstError);
    expect(records.map(({ lot, onHand }) => [lot, onHand])).toEqual([
      ['L1', 0],
      ['L2', 0],
      ['L3', 0],
    ]);
    expect(plan.writes.filter((write) => write.op === 'create')).toHaveLength(0);
    expect(plan.result.lines.map(({ stockRecordId, previousQuantity, quantity }) => [stockRecordId, previousQuantity, quantity])).toEqual(
      records.map((record) => [record.id, 0, 2]),
    );
    const changed = plan.events
      .filter((event) => event.type === 'stock.changed')
      .map((event) => (event.data as { previousUpdatedAt?: string | null }).previousUpdatedAt);
    expect(changed).toEqual([null, null, null]);
  });
});
