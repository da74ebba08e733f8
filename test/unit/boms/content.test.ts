import { describe, expect, it } from 'vitest';
import type { BomContent, BomContentInput, BomLine } from '../../../lib/boms/domain/bom.ts';
import { contentFromInput, revisionSummary, sameContent } from '../../../lib/boms/domain/content.ts';

function lineIds(...ids: string[]): () => string {
  const remaining = [...ids];
  return () => {
    const next = remaining.shift();
    if (next === undefined) throw new Error('no more line ids prepared');
    return next;
  };
}

const noNewLineIds = lineIds();

const housing: BomLine = { lineId: 'bln_HOUSING', itemId: 'itm_HOUSING', quantity: 1, unit: 'ea', scrapPercent: 0, notes: null };
const bolt: BomLine = { lineId: 'bln_BOLT', itemId: 'itm_BOLT', quantity: 8, unit: 'ea', scrapPercent: 2.5, notes: 'M8 x 30' };

const pump: BomContent = {
  name: 'Pump assembly',
  targetItemId: 'itm_PUMP',
  status: 'active',
  outputQuantity: 2,
  unit: 'ea',
  notes: 'Torque bolts crosswise',
  lines: [housing, bolt],
};

describe('contentFromInput', () => {
  it('fills every absent optional field with its default on create', () => {
    // Prepare
    const input: BomContentInput = { name: 'Pump assembly', targetItemId: 'itm_PUMP', components: [{ itemId: 'itm_HOUSING', quantity: 1 }] };

    // Act
    const content = contentFromInput(input, undefined, lineIds('bln_NEW'));

    // Assess
    expect(content).toEqual({
      name: 'Pump assembly',
      targetItemId: 'itm_PUMP',
      status: 'draft',
      outputQuantity: 1,
      unit: null,
      notes: null,
      lines: [{ lineId: 'bln_NEW', itemId: 'itm_HOUSING', quantity: 1, unit: null, scrapPercent: 0, notes: null }],
    });
  });

  it('treats explicit nulls like absent fields', () => {
    // Prepare
    const input: BomContentInput = {
      name: 'n',
      targetItemId: 't',
      unit: null,
      notes: null,
      components: [{ itemId: 'i', quantity: 3, unit: null, notes: null }],
    };

    // Act
    const content = contentFromInput(input, undefined, lineIds('bln_1'));

    // Assess
    expect(content).toMatchObject({ unit: null, notes: null, lines: [{ unit: null, scrapPercent: 0, notes: null }] });
  });

  it('takes every given field as is, keeping the request order of components', () => {
    // Prepare
    const input: BomContentInput = {
      name: 'Pump assembly',
      targetItemId: 'itm_PUMP',
      status: 'active',
      outputQuantity: 2,
      unit: 'ea',
      notes: 'Torque bolts crosswise',
      components: [
        { itemId: 'itm_BOLT', quantity: 8, unit: 'ea', scrapPercent: 2.5, notes: 'M8 x 30' },
        { itemId: 'itm_HOUSING', quantity: 1, unit: 'ea', scrapPercent: 0, notes: null },
      ],
    };

    // Act
    const content = contentFromInput(input, undefined, lineIds('bln_BOLT', 'bln_HOUSING'));

    // Assess
    expect(content).toEqual({ ...pump, lines: [bolt, housing] });
  });

  it('resets an absent optional field to its default on update (a PUT replaces the content)', () => {
    // Prepare: the previous revision has every optional field set; the request names none of them
    const input: BomContentInput = {
      name: pump.name,
      targetItemId: pump.targetItemId,
      components: [{ itemId: 'itm_BOLT', quantity: 8 }],
    };

    // Act
    const content = contentFromInput(input, pump, noNewLineIds);

    // Assess
    expect(content).toEqual({
      name: 'Pump assembly',
      targetItemId: 'itm_PUMP',
      status: 'draft',
      outputQuantity: 1,
      unit: null,
      notes: null,
      lines: [{ lineId: 'bln_BOLT', itemId: 'itm_BOLT', quantity: 8, unit: null, scrapPercent: 0, notes: null }],
    });
  });

  it('keeps the lineId of an item that already had a line and gives a new item a new lineId', () => {
    // Prepare
    const input: BomContentInput = {
      name: pump.name,
      targetItemId: pump.targetItemId,
      components: [
        { itemId: 'itm_SEAL', quantity: 2 },
        { itemId: 'itm_BOLT', quantity: 10 },
        { itemId: 'itm_OIL', quantity: 0.5 },
      ],
    };

    // Act
    const content = contentFromInput(input, pump, lineIds('bln_SEAL', 'bln_OIL'));

    // Assess
    expect(content.lines.map((line) => [line.itemId, line.lineId])).toEqual([
      ['itm_SEAL', 'bln_SEAL'],
      ['itm_BOLT', 'bln_BOLT'],
      ['itm_OIL', 'bln_OIL'],
    ]);
  });

  it('rejects an item given twice with a plain error, before drawing a lineId for it', () => {
    // Prepare
    const input: BomContentInput = {
      name: 'n',
      targetItemId: 't',
      components: [
        { itemId: 'itm_BOLT', quantity: 1 },
        { itemId: 'itm_BOLT', quantity: 2 },
      ],
    };

    // Act / Assess
    expect(() => contentFromInput(input, undefined, lineIds('bln_1'))).toThrow(/itm_BOLT/);
  });
});

describe('sameContent', () => {
  it('is true for identical content and for the same input parsed again', () => {
    // Prepare
    const again = contentFromInput(
      {
        name: pump.name,
        targetItemId: pump.targetItemId,
        status: pump.status,
        outputQuantity: pump.outputQuantity,
        unit: pump.unit,
        notes: pump.notes,
        components: pump.lines.map(({ itemId, quantity, unit, scrapPercent, notes }) => ({ itemId, quantity, unit, scrapPercent, notes })),
      },
      pump,
      noNewLineIds,
    );

    // Act / Assess
    expect(sameContent(pump, structuredClone(pump))).toBe(true);
    expect(sameContent(pump, again)).toBe(true);
  });

  it('is true when only the order of lines differs', () => {
    // Act / Assess
    expect(sameContent(pump, { ...pump, lines: [bolt, housing] })).toBe(true);
  });

  it('ignores lineIds', () => {
    // Act / Assess
    expect(sameContent(pump, { ...pump, lines: [{ ...housing, lineId: 'bln_OTHER' }, bolt] })).toBe(true);
  });

  it.each<[string, Partial<BomContent>]>([
    ['name', { name: 'Pump assembly v2' }],
    ['targetItemId', { targetItemId: 'itm_PUMP_2' }],
    ['status', { status: 'obsolete' }],
    ['outputQuantity', { outputQuantity: 2.000001 }],
    ['unit', { unit: null }],
    ['notes', { notes: 'Torque bolts crosswise.' }],
  ])('is false when the header field %s differs', (_field, change) => {
    // Act / Assess
    expect(sameContent(pump, { ...pump, ...change })).toBe(false);
  });

  it.each<[string, Partial<BomLine>]>([
    ['quantity', { quantity: 8.000001 }],
    ['unit', { unit: 'pcs' }],
    ['scrapPercent', { scrapPercent: 0 }],
    ['notes', { notes: null }],
  ])('is false when the line field %s differs', (_field, change) => {
    // Act / Assess
    expect(sameContent(pump, { ...pump, lines: [housing, { ...bolt, ...change }] })).toBe(false);
  });

  it('is false when a line is added, removed or swapped for another item', () => {
    // Prepare
    const seal: BomLine = { ...bolt, lineId: 'bln_SEAL', itemId: 'itm_SEAL' };

    // Act / Assess
    expect(sameContent(pump, { ...pump, lines: [housing, bolt, seal] })).toBe(false);
    expect(sameContent(pump, { ...pump, lines: [housing] })).toBe(false);
    expect(sameContent(pump, { ...pump, lines: [housing, seal] })).toBe(false);
  });
});

describe('revisionSummary', () => {
  it('counts every line as added for a first revision', () => {
    // Act / Assess
    expect(revisionSummary(undefined, pump)).toEqual({ added: 2, removed: 0, changed: 0 });
  });

  it('counts added, removed and changed lines against the previous revision', () => {
    // Prepare: housing removed, bolt changed, seal and oil added
    const next: BomContent = {
      ...pump,
      status: 'obsolete',
      lines: [
        { ...bolt, quantity: 10 },
        { lineId: 'bln_SEAL', itemId: 'itm_SEAL', quantity: 2, unit: null, scrapPercent: 0, notes: null },
        { lineId: 'bln_OIL', itemId: 'itm_OIL', quantity: 0.5, unit: 'l', scrapPercent: 0, notes: null },
      ],
    };

    // Act / Assess
    expect(revisionSummary(pump, next)).toEqual({ added: 2, removed: 1, changed: 1 });
  });

  it('counts nothing for a header-only change', () => {
    // Act / Assess
    expect(revisionSummary(pump, { ...pump, name: 'Renamed' })).toEqual({ added: 0, removed: 0, changed: 0 });
  });
});
