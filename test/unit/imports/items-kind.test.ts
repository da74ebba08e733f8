import { describe, expect, it } from 'vitest';
import { eventItemSchema, itemCreatedDataSchema, itemUpdatedDataSchema, type EventItem } from '../../../lib/events/contracts/events.ts';
import { newId } from '../../../lib/platform/core/ids.ts';
import { itemsKind, type ItemRow } from '../../../lib/imports/domain/items-kind.ts';
import type { Item } from '../../../lib/inventory/domain/item.ts';
import type { DecideContext } from '../../../lib/imports/domain/kind-definition.ts';
import type { DuplicateStrategy, RawRow, RowError } from '../../../lib/imports/domain/types.ts';
import { A1, at, World } from '../../support/stock-world.ts';

// Item and the event item are the same shape, both ways.
const _recordIsEventItem: EventItem = {} as Item;
const _eventItemIsRecord: Item = {} as EventItem;

const NOW = '2026-03-02T09:14:05.000Z';
const EARLIER = '2026-01-05T10:00:00.000Z';
const NEW_ID = 'itm_01KJPX6ZT8MKYT6YPE0ZSHBVX3';

/** The stock the decisions see: a world where the item holds nothing unless a test stores some. */
function context(rowNumber = 7, world = new World()): Pick<DecideContext, 'now' | 'newId' | 'rowNumber' | 'stock'> {
  return { now: NOW, newId: () => NEW_ID, rowNumber, stock: world.context().stock };
}

function parse(raw: RawRow, rowNumber = 3) {
  return itemsKind.parseRow(raw, rowNumber);
}

function parsedRow(raw: RawRow): ItemRow {
  const result = parse(raw);
  if (!result.ok) throw new Error(`expected a valid row: ${JSON.stringify(result.errors)}`);
  return result.value;
}

function rowErrors(raw: RawRow): RowError[] {
  const result = parse(raw);
  if (result.ok) throw new Error('expected row errors');
  return result.errors;
}

const existing: Item = {
  id: 'itm_01KH3AQWT0ZCB6Z8FRSJRCD9CS',
  sku: 'OIL-HV46',
  name: 'Hydraulic oil HV 46',
  unit: 'l',
  description: null,
  category: 'Lubricants',
  barcode: '4006381333931',
  reorderPoint: 150,
  trackingMode: 'lot',
  createdAt: EARLIER,
  updatedAt: EARLIER,
};

describe('itemsKind.parseRow', () => {
  it('parses a full row, keeping free text as given', () => {
    // Act
    const row = parsedRow({
      sku: 'OIL-HV46',
      name: ' Hydraulic oil, "HV 46" ',
      unit: 'l',
      description: 'ISO VG 46\nbulk',
      category: '=Lubricants',
      barcode: '4006381333931',
      reorderpoint: '12.5',
      trackingmode: 'lot',
    });

    // Assess
    expect(row).toEqual({
      sku: 'OIL-HV46',
      name: ' Hydraulic oil, "HV 46" ',
      unit: 'l',
      description: 'ISO VG 46\nbulk',
      category: '=Lubricants',
      barcode: '4006381333931',
      reorderPoint: 12.5,
      trackingMode: 'lot',
    });
  });

  it('gives undefined for absent columns and null for empty cells', () => {
    // Act
    const row = parsedRow({ sku: 'A', name: 'a', unit: '', description: '  ', reorderpoint: '' });

    // Assess
    expect(row).toEqual({
      sku: 'A',
      name: 'a',
      unit: null,
      description: null,
      category: undefined,
      barcode: undefined,
      reorderPoint: null,
      trackingMode: undefined,
    });
  });

  it.each([
    ['0', 0],
    ['12', 12],
    ['12.5', 12.5],
    ['0.001', 0.001],
    ['-0', 0],
    ['100000000', 100000000],
  ])('accepts reorderPoint %j', (cell, value) => {
    // Act
    const row = parsedRow({ sku: 'A', name: 'a', reorderpoint: cell });

    // Assess
    expect(row.reorderPoint).toBe(value);
    expect(Object.is(row.reorderPoint, -0)).toBe(false);
  });

  it.each<{ rule: string; raw: RawRow; column: string; value: string; code: string }>([
    { rule: 'sku missing', raw: { name: 'a' }, column: 'sku', value: '', code: 'required' },
    { rule: 'sku empty', raw: { sku: '', name: 'a' }, column: 'sku', value: '', code: 'required' },
    { rule: 'sku whitespace only', raw: { sku: '   ', name: 'a' }, column: 'sku', value: '   ', code: 'required' },
    { rule: 'sku leading space', raw: { sku: ' A', name: 'a' }, column: 'sku', value: ' A', code: 'invalid-value' },
    { rule: 'sku trailing tab', raw: { sku: 'A\t', name: 'a' }, column: 'sku', value: 'A\t', code: 'invalid-value' },
    { rule: 'sku line break', raw: { sku: 'A\nB', name: 'a' }, column: 'sku', value: 'A\nB', code: 'invalid-value' },
    { rule: 'sku 65 characters', raw: { sku: 'S'.repeat(65), name: 'a' }, column: 'sku', value: 'S'.repeat(65), code: 'too-long' },
    { rule: 'name empty', raw: { sku: 'A', name: '' }, column: 'name', value: '', code: 'required' },
    { rule: 'name whitespace only', raw: { sku: 'A', name: ' \t' }, column: 'name', value: ' \t', code: 'required' },
    { rule: 'name 201 characters', raw: { sku: 'A', name: 'n'.repeat(201) }, column: 'name', value: 'n'.repeat(201), code: 'too-long' },
    { rule: 'unit 17 characters', raw: { sku: 'A', name: 'a', unit: 'u'.repeat(17) }, column: 'unit', value: 'u'.repeat(17), code: 'too-long' },
    { rule: 'unit padded', raw: { sku: 'A', name: 'a', unit: 'kg ' }, column: 'unit', value: 'kg ', code: 'invalid-value' },
    { rule: 'description 2001', raw: { sku: 'A', name: 'a', description: 'd'.repeat(2001) }, column: 'description', value: 'd'.repeat(2001), code: 'too-long' },
    { rule: 'category 101', raw: { sku: 'A', name: 'a', category: 'c'.repeat(101) }, column: 'category', value: 'c'.repeat(101), code: 'too-long' },
    { rule: 'barcode 65', raw: { sku: 'A', name: 'a', barcode: '1'.repeat(65) }, column: 'barcode', value: '1'.repeat(65), code: 'too-long' },
    { rule: 'barcode padded', raw: { sku: 'A', name: 'a', barcode: ' 123' }, column: 'barcode', value: ' 123', code: 'invalid-value' },
    { rule: 'reorderPoint exponent', raw: { sku: 'A', name: 'a', reorderpoint: '1e3' }, column: 'reorderPoint', value: '1e3', code: 'invalid-number' },
    { rule: 'reorderPoint decimal comma', raw: { sku: 'A', name: 'a', reorderpoint: '1,5' }, column: 'reorderPoint', value: '1,5', code: 'invalid-number' },
    { rule: 'reorderPoint thousands', raw: { sku: 'A', name: 'a', reorderpoint: '1 000' }, column: 'reorderPoint', value: '1 000', code: 'invalid-number' },
    { rule: 'reorderPoint leading zero', raw: { sku: 'A', name: 'a', reorderpoint: '007' }, column: 'reorderPoint', value: '007', code: 'invalid-number' },
    { rule: 'reorderPoint plus', raw: { sku: 'A', name: 'a', reorderpoint: '+5' }, column: 'reorderPoint', value: '+5', code: 'invalid-number' },
    { rule: 'reorderPoint padded', raw: { sku: 'A', name: 'a', reorderpoint: ' 5' }, column: 'reorderPoint', value: ' 5', code: 'invalid-number' },
    { rule: 'reorderPoint bare dot', raw: { sku: 'A', name: 'a', reorderpoint: '.5' }, column: 'reorderPoint', value: '.5', code: 'invalid-number' },
    { rule: 'reorderPoint text', raw: { sku: 'A', name: 'a', reorderpoint: 'ten' }, column: 'reorderPoint', value: 'ten', code: 'invalid-number' },
    { rule: 'reorderPoint formula', raw: { sku: 'A', name: 'a', reorderpoint: '=1+1' }, column: 'reorderPoint', value: '=1+1', code: 'invalid-number' },
    { rule: 'reorderPoint negative', raw: { sku: 'A', name: 'a', reorderpoint: '-3.5' }, column: 'reorderPoint', value: '-3.5', code: 'invalid-number' },
    {
      rule: 'reorderPoint infinite',
      raw: { sku: 'A', name: 'a', reorderpoint: '9'.repeat(400) },
      column: 'reorderPoint',
      value: '9'.repeat(400),
      code: 'invalid-number',
    },
    { rule: 'trackingMode unknown', raw: { sku: 'A', name: 'a', trackingmode: 'serial' }, column: 'trackingMode', value: 'serial', code: 'invalid-value' },
    { rule: 'trackingMode case', raw: { sku: 'A', name: 'a', trackingmode: 'Lot' }, column: 'trackingMode', value: 'Lot', code: 'invalid-value' },
  ])('$rule → $code', ({ raw, column, value, code }) => {
    // Act
    const errors = rowErrors(raw);

    // Assess
    expect(errors).toEqual([{ rowNumber: 3, column, value, code, message: expect.stringContaining(column) }]);
  });

  it.each([
    ['sku', { sku: 'S'.repeat(64), name: 'a' }],
    ['name', { sku: 'A', name: 'n'.repeat(200) }],
    ['name (astral characters count once)', { sku: 'A', name: '😀'.repeat(200) }],
    ['unit', { sku: 'A', name: 'a', unit: 'u'.repeat(16) }],
    ['description', { sku: 'A', name: 'a', description: 'd'.repeat(2000) }],
    ['category', { sku: 'A', name: 'a', category: 'c'.repeat(100) }],
    ['barcode', { sku: 'A', name: 'a', barcode: '1'.repeat(64) }],
  ])('accepts %s at its maximum length', (_name, raw) => {
    // Act
    const result = parse(raw);

    // Assess
    expect(result.ok).toBe(true);
  });

  it('reports every problem of the row at once, in column order', () => {
    // Act
    const errors = rowErrors({ sku: ' A', name: '', unit: 'u'.repeat(20), reorderpoint: '1e3', trackingmode: 'serial' });

    // Assess
    expect(errors.map((error) => [error.column, error.code])).toEqual([
      ['sku', 'invalid-value'],
      ['name', 'required'],
      ['unit', 'too-long'],
      ['reorderPoint', 'invalid-number'],
      ['trackingMode', 'invalid-value'],
    ]);
    expect(errors.every((error) => error.rowNumber === 3)).toBe(true);
  });
});

describe('itemsKind.naturalKeyOf and references', () => {
  it('keys by sku and refers to nothing', () => {
    // Prepare
    const row = parsedRow({ sku: 'A-1', name: 'a' });

    // Act / Assess
    expect(itemsKind.naturalKeyOf(row)).toBe('A-1');
    expect(itemsKind.references(row)).toEqual([]);
  });
});

describe('itemsKind.decide', () => {
  it.each<DuplicateStrategy>(['skip', 'update', 'fail'])('creates a new item with defaults (strategy %s)', (strategy) => {
    // Prepare
    const row = parsedRow({ sku: 'NEW-1', name: 'New' });

    // Act
    const decision = itemsKind.decide(row, undefined, strategy, context());

    // Assess
    const item: Item = {
      id: NEW_ID,
      sku: 'NEW-1',
      name: 'New',
      unit: 'ea',
      description: null,
      category: null,
      barcode: null,
      reorderPoint: null,
      trackingMode: 'none',
      createdAt: NOW,
      updatedAt: NOW,
    };
    expect(decision).toEqual({ action: 'created', record: item, events: [{ type: 'item.created', data: { item }, occurredAt: NOW }] });
    if (decision.action !== 'created') throw new Error('unreachable');
    expect(itemCreatedDataSchema.parse(decision.events[0]?.data)).toEqual({ item });
  });

  it('creates with every column given; empty cells take the defaults', () => {
    // Prepare
    const full = parsedRow({ sku: 'A', name: 'a', unit: 'kg', description: 'd', category: 'c', barcode: 'b', reorderpoint: '5', trackingmode: 'lot' });
    const empty = parsedRow({ sku: 'A', name: 'a', unit: '', description: '', category: '', barcode: '', reorderpoint: '', trackingmode: '' });

    // Act
    const fromFull = itemsKind.decide(full, undefined, 'update', context());
    const fromEmpty = itemsKind.decide(empty, undefined, 'update', context());

    // Assess
    expect(fromFull.action === 'created' && fromFull.record).toMatchObject({
      unit: 'kg',
      description: 'd',
      category: 'c',
      barcode: 'b',
      reorderPoint: 5,
      trackingMode: 'lot',
    });
    expect(fromEmpty.action === 'created' && fromEmpty.record).toMatchObject({
      unit: 'ea',
      description: null,
      category: null,
      barcode: null,
      reorderPoint: null,
      trackingMode: 'none',
    });
  });

  it('uses a real id generator', () => {
    // Act
    const decision = itemsKind.decide(parsedRow({ sku: 'A', name: 'a' }), undefined, 'fail', { now: NOW, newId: () => newId('itm'), rowNumber: 1 });

    // Assess
    expect(decision.action === 'created' && eventItemSchema.parse(decision.record).id).toMatch(/^itm_/);
  });

  it('skips an existing item with strategy skip, without events', () => {
    // Act
    const decision = itemsKind.decide(parsedRow({ sku: existing.sku, name: 'Changed' }), existing, 'skip', context());

    // Assess
    expect(decision).toEqual({ action: 'skipped', events: [] });
  });

  it('fails an existing item with strategy fail as duplicate', () => {
    // Act
    const decision = itemsKind.decide(parsedRow({ sku: existing.sku, name: existing.name }), existing, 'fail', context(7));

    // Assess
    expect(decision).toEqual({
      action: 'failed',
      error: { rowNumber: 7, column: 'sku', value: existing.sku, code: 'duplicate', message: expect.stringContaining('OIL-HV46') },
    });
  });

  it('updates changed fields with strategy update: changedFields and previous name exactly those', () => {
    // Prepare: description null → text, reorderPoint 150 → 200, category unchanged, unit absent
    const row = parsedRow({ sku: existing.sku, name: existing.name, description: 'ISO VG 46, bulk', category: 'Lubricants', reorderpoint: '200' });

    // Act
    const decision = itemsKind.decide(row, existing, 'update', context());

    // Assess
    const item: Item = { ...existing, description: 'ISO VG 46, bulk', reorderPoint: 200, updatedAt: NOW };
    const data = { item, changedFields: ['description', 'reorderPoint'], previous: { description: null, reorderPoint: 150 } };
    expect(decision).toEqual({ action: 'updated', record: item, events: [{ type: 'item.updated', data, occurredAt: NOW }] });
    if (decision.action !== 'updated') throw new Error('unreachable');
    expect(itemUpdatedDataSchema.parse(decision.events[0]?.data)).toEqual(data);
  });

  it('keeps id and createdAt on update', () => {
    // Act
    const decision = itemsKind.decide(parsedRow({ sku: existing.sku, name: 'Renamed' }), existing, 'update', context());

    // Assess
    expect(decision.action === 'updated' && decision.record).toMatchObject({ id: existing.id, createdAt: EARLIER, updatedAt: NOW, name: 'Renamed' });
  });

  it.each<{ rule: string; raw: RawRow; changed: Partial<Item>; previous: Partial<Item> }>([
    { rule: 'empty description stays null (no change)', raw: { description: '' }, changed: {}, previous: {} },
    { rule: 'empty category clears it', raw: { category: '' }, changed: { category: null }, previous: { category: 'Lubricants' } },
    { rule: 'empty barcode clears it', raw: { barcode: '' }, changed: { barcode: null }, previous: { barcode: '4006381333931' } },
    { rule: 'empty reorderPoint clears it', raw: { reorderpoint: '' }, changed: { reorderPoint: null }, previous: { reorderPoint: 150 } },
    { rule: 'empty unit resets it to ea', raw: { unit: '' }, changed: { unit: 'ea' }, previous: { unit: 'l' } },
    { rule: 'empty trackingMode resets it to none', raw: { trackingmode: '' }, changed: { trackingMode: 'none' }, previous: { trackingMode: 'lot' } },
    {
      rule: 'several fields, in ITEM_CHANGEABLE_FIELDS order',
      raw: { trackingmode: 'none', unit: 'kg', name: 'Oil' },
      changed: { name: 'Oil', unit: 'kg', trackingMode: 'none' },
      previous: { name: existing.name, unit: 'l', trackingMode: 'lot' },
    },
  ])('update semantics: $rule', ({ raw, changed, previous }) => {
    // Prepare
    const row = parsedRow({ sku: existing.sku, name: existing.name, ...raw });

    // Act
    const decision = itemsKind.decide(row, existing, 'update', context());

    // Assess
    if (Object.keys(changed).length === 0) {
      expect(decision).toEqual({ action: 'skipped', events: [] });
      return;
    }
    expect(decision.action).toBe('updated');
    if (decision.action !== 'updated') throw new Error('unreachable');
    expect(decision.record).toEqual({ ...existing, ...changed, updatedAt: NOW });
    const data = itemUpdatedDataSchema.parse(decision.events[0]?.data);
    expect(data.changedFields).toEqual(Object.keys(changed));
    expect(data.previous).toEqual(previous);
  });

  it('leaves fields of columns absent from the file unchanged', () => {
    // Prepare: only sku and name in the header
    const row = parsedRow({ sku: existing.sku, name: existing.name });

    // Act
    const decision = itemsKind.decide(row, existing, 'update', context());

    // Assess
    expect(decision).toEqual({ action: 'skipped', events: [] });
  });

  it('skips an update that changes nothing, even with every column present', () => {
    // Prepare
    const row = parsedRow({
      sku: existing.sku,
      name: existing.name,
      unit: 'l',
      description: '',
      category: 'Lubricants',
      barcode: '4006381333931',
      reorderpoint: '150.0',
      trackingmode: 'lot',
    });

    // Act
    const decision = itemsKind.decide(row, existing, 'update', context());

    // Assess
    expect(decision).toEqual({ action: 'skipped', events: [] });
  });

  it('does not share objects between the record and the event', () => {
    // Act
    const decision = itemsKind.decide(parsedRow({ sku: 'A', name: 'a' }), undefined, 'skip', context());

    // Assess
    if (decision.action !== 'created') throw new Error('unreachable');
    expect(decision.events[0]?.data.item).not.toBe(decision.record);
  });

  it.each([
    { rule: 'to none', cell: 'none', value: 'none' },
    { rule: 'by an empty cell (none)', cell: '', value: null },
  ])(
    'refuses a trackingMode change $rule while the item holds stock (tracking-change-with-stock), and reads the total for the commit to check',
    ({ cell, value }) => {
      // Prepare: the lot-tracked item holds 100 in lot L1
      const world = new World();
      world.stock(existing, at(A1, 'L1'), 100);

      // Act
      const decision = itemsKind.decide(parsedRow({ sku: existing.sku, name: existing.name, trackingmode: cell }), existing, 'update', context(7, world));

      // Assess
      expect(decision).toMatchObject({ action: 'failed', error: { rowNumber: 7, column: 'trackingMode', value, code: 'tracking-change-with-stock' } });
      expect(world.ledger.flush()).toEqual([{ op: 'check-item-stock', itemId: existing.id, expectedVersion: 1 }]);
    },
  );

  it('changes trackingMode of an item that holds nothing, writing its total (0) under the new mode, so stock decided on the old mode cannot commit after it', () => {
    // Prepare
    const world = new World();

    // Act
    const decision = itemsKind.decide(parsedRow({ sku: existing.sku, name: existing.name, trackingmode: 'none' }), existing, 'update', context(7, world));

    // Assess
    expect(decision.action === 'updated' && decision.record.trackingMode).toBe('none');
    expect(world.ledger.flush()).toEqual([
      {
        op: 'put-item-stock',
        itemStock: { itemId: existing.id, onHand: 0, trackingMode: 'none' },
        expectedVersion: null,
        trackingModeRead: existing.trackingMode,
      },
    ]);
  });
});
