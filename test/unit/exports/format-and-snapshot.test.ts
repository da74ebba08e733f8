import { describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../../lib/events/domain/read-feed.ts';
import { encodeRows, fileHeader } from '../../../lib/exports/domain/format.ts';
import { exportKind } from '../../../lib/exports/domain/kinds.ts';
import { itemsAtSnapshot, stockAtSnapshot } from '../../../lib/exports/domain/snapshot.ts';
import { validateFilters } from '../../../lib/exports/domain/submit.ts';
import { unescapeFormula } from '../../../lib/platform/csv/csv-safety.ts';
import { itemOf } from '../../support/stock-world.ts';

/** The export writer, the filter validation and the snapshot roll-back (docs/exports.md), on plain values. */

const items = exportKind('items')!;
const stock = exportKind('stock-records')!;

function feed(...events: Array<{ type: string; data: Record<string, unknown> }>): {
  lastSequence: () => Promise<number>;
  readFrom: (org: string, from: number, max: number) => Promise<StoredEvent[]>;
} {
  const stored = events.map(
    (event, index) =>
      ({
        sequence: index + 1,
        committedAt: '',
        envelope: { id: `evt_${index + 1}`, type: event.type, version: 1, occurredAt: '', organizationId: 'o', data: event.data },
      }) as unknown as StoredEvent,
  );
  return {
    lastSequence: async () => stored.length,
    readFrom: async (_org, from, max) => stored.filter((event) => event.sequence >= from).slice(0, max),
  };
}

describe('encodeRows', () => {
  it('writes CSV with CRLF, RFC 4180 quoting, numbers as numbers and a leading quote on hostile text', () => {
    // Act
    const csv =
      fileHeader('csv', items.columns) +
      encodeRows('csv', items.columns, [
        { sku: '-1', name: 'a,"b"\nc', unit: '@u', description: '\tx', category: null, barcode: '+1', reorderPoint: -5, trackingMode: 'none' },
      ]);

    // Assess
    expect(csv).toBe('sku,name,unit,description,category,barcode,reorderPoint,trackingMode\r\n\'-1,"a,""b""\nc",\'@u,\'\tx,,\'+1,-5,none\r\n');
  });

  it('writes JSON Lines with the columns in order and null for none, unescaped', () => {
    // Act
    const jsonl = fileHeader('jsonl', items.columns) + encodeRows('jsonl', items.columns, [{ trackingMode: 'lot', sku: '=A', reorderPoint: 2 }]);

    // Assess
    expect(jsonl).toBe('{"sku":"=A","name":null,"unit":null,"description":null,"category":null,"barcode":null,"reorderPoint":2,"trackingMode":"lot"}\n');
  });

  it('reads back every escaped cell as written, on the import side', () => {
    for (const text of ['=SUM(A1)', '+1', '-5', '@x', '\tx', '\rx', "'plain", 'plain']) {
      const written = encodeRows('csv', [{ name: 'v', type: 'string', description: '' }], [{ v: text }]);
      const cell = written.startsWith('"') ? written.slice(1, written.lastIndexOf('"')) : written.slice(0, -2);
      expect(unescapeFormula(cell)).toBe(text);
    }
  });
});

describe('validateFilters', () => {
  it('names every unknown, mistyped and missing filter at once', () => {
    // Act + Assess
    expect(() => validateFilters(stock, { nonZero: 'yes', colour: 'red', sku: '' })).toThrow(
      expect.objectContaining({
        errors: [
          expect.objectContaining({ pointer: '/filters/colour' }),
          expect.objectContaining({ pointer: '/filters/sku' }),
          expect.objectContaining({ pointer: '/filters/nonZero' }),
        ],
      }),
    );
    expect(() => validateFilters(exportKind('import-row-errors')!, {})).toThrow(
      expect.objectContaining({ errors: [expect.objectContaining({ code: 'required' })] }),
    );
    expect(validateFilters(stock, { nonZero: true, sku: 'A' })).toEqual({ sku: 'A', nonZero: true });
  });
});

describe('snapshot roll-back', () => {
  const record = (id: string, onHand: number) => ({
    id,
    itemId: 'itm_a',
    sku: 'A',
    locationId: 'loc_a',
    locationCode: 'L',
    lot: null,
    onHand,
    createdAt: '',
    updatedAt: 'now',
  });

  it('takes the first before-image after S: quantity and updatedAt at S, a record at 0 at S kept with 0, one created after S left out', async () => {
    // Prepare: S = 1; then stk_a 5→7→9, stk_c 0→4 (it existed at 0), stk_d created with 2
    const events = feed(
      { type: 'stock.changed', data: { stockRecordId: 'stk_b', previousQuantity: 0, previousUpdatedAt: null, quantity: 3 } },
      { type: 'stock.changed', data: { stockRecordId: 'stk_a', previousQuantity: 5, previousUpdatedAt: 'a-at-S', quantity: 7 } },
      { type: 'stock.changed', data: { stockRecordId: 'stk_c', previousQuantity: 0, previousUpdatedAt: 'c-at-S', quantity: 4 } },
      { type: 'stock.changed', data: { stockRecordId: 'stk_a', previousQuantity: 7, previousUpdatedAt: 'a-later', quantity: 9 } },
      { type: 'stock.changed', data: { stockRecordId: 'stk_d', previousQuantity: 0, previousUpdatedAt: null, quantity: 2 } },
    );

    // Act
    const rows = await stockAtSnapshot(events, 'o', 1, [record('stk_a', 9), record('stk_b', 3), record('stk_c', 4), record('stk_d', 2)]);

    // Assess
    expect(rows.map(({ record: { id }, quantity, updatedAt }) => [id, quantity, updatedAt])).toEqual([
      ['stk_a', 5, 'a-at-S'],
      ['stk_b', 3, 'now'],
      ['stk_c', 0, 'c-at-S'],
    ]);
  });

  it('an event from before previousUpdatedAt existed: a rolled-back record without updatedAt, one at 0 left out (it cannot be told from a new one)', async () => {
    // Prepare
    const events = feed(
      { type: 'stock.changed', data: { stockRecordId: 'stk_a', previousQuantity: 5, quantity: 7 } },
      { type: 'stock.changed', data: { stockRecordId: 'stk_c', previousQuantity: 0, quantity: 4 } },
    );

    // Act
    const rows = await stockAtSnapshot(events, 'o', 0, [record('stk_a', 7), record('stk_c', 4)]);

    // Assess
    expect(rows.map(({ record: { id }, quantity, updatedAt }) => [id, quantity, updatedAt])).toEqual([['stk_a', 5, null]]);
  });

  it('rolls reserved back to the previousReserved of the first change after S that carries it, and leaves it as it is without one', async () => {
    // Prepare: S = 1. stk_a: reserved 2 at S, then a reservation (2→6) and a receipt (6 kept);
    // stk_b: a change written before reservations (no previousReserved), then one that carries it (1 at S, 1→0);
    // stk_c: only changes without previousReserved (reserved as it is now); stk_d: no change after S.
    const reserved = (id: string, onHand: number, held: number | undefined) => ({ ...record(id, onHand), ...(held === undefined ? {} : { reserved: held }) });
    const events = feed(
      { type: 'stock.changed', data: { stockRecordId: 'stk_a', previousQuantity: 1, previousUpdatedAt: 'before-S', quantity: 1 } },
      {
        type: 'stock.changed',
        data: { stockRecordId: 'stk_a', previousQuantity: 10, previousUpdatedAt: 'a-at-S', quantity: 10, previousReserved: 2, reserved: 6 },
      },
      { type: 'stock.changed', data: { stockRecordId: 'stk_b', previousQuantity: 4, previousUpdatedAt: 'b-at-S', quantity: 5 } },
      {
        type: 'stock.changed',
        data: { stockRecordId: 'stk_a', previousQuantity: 10, previousUpdatedAt: 'a-later', quantity: 15, previousReserved: 6, reserved: 6 },
      },
      {
        type: 'stock.changed',
        data: { stockRecordId: 'stk_b', previousQuantity: 5, previousUpdatedAt: 'b-later', quantity: 5, previousReserved: 1, reserved: 0 },
      },
      { type: 'stock.changed', data: { stockRecordId: 'stk_c', previousQuantity: 3, previousUpdatedAt: 'c-at-S', quantity: 8 } },
    );

    // Act
    const rows = await stockAtSnapshot(events, 'o', 1, [
      reserved('stk_a', 15, 6),
      reserved('stk_b', 5, 0),
      reserved('stk_c', 8, 3),
      reserved('stk_d', 4, undefined),
    ]);

    // Assess
    expect(rows.map(({ record: { id }, quantity, reserved: held, updatedAt }) => [id, quantity, held, updatedAt])).toEqual([
      ['stk_a', 10, 2, 'a-at-S'],
      ['stk_b', 4, 1, 'b-at-S'],
      ['stk_c', 3, 3, 'c-at-S'],
      ['stk_d', 4, 0, 'now'],
    ]);
  });

  it('leaves out items created after S and restores each field from the first update that changed it', async () => {
    // Prepare
    const events = feed(
      { type: 'item.updated', data: { item: { id: 'itm_a' }, previous: { name: 'Old' } } },
      { type: 'item.created', data: { item: { id: 'itm_b' } } },
      { type: 'item.updated', data: { item: { id: 'itm_a' }, previous: { name: 'Newer', unit: 'kg' } } },
    );

    // Act
    const rows = await itemsAtSnapshot(events, 'o', 0, [itemOf('itm_a', 'A', { name: 'Newest', unit: 'g' }), itemOf('itm_b', 'B')]);

    // Assess
    expect(rows.map(({ id, name, unit }) => [id, name, unit])).toEqual([['itm_a', 'Old', 'kg']]);
  });
});
