import { describe, expect, it } from 'vitest';
import type { BomContent, BomLine } from '../../../lib/boms/domain/bom.ts';
import { applyComparison, compareContents, type ContentComparison } from '../../../lib/boms/domain/compare.ts';

const housing: BomLine = { lineId: 'bln_HOUSING', itemId: 'itm_HOUSING', quantity: 1, unit: 'ea', scrapPercent: 0, notes: null };
const bolt: BomLine = { lineId: 'bln_BOLT', itemId: 'itm_BOLT', quantity: 8, unit: 'ea', scrapPercent: 2, notes: null };
const oil: BomLine = { lineId: 'bln_OIL', itemId: 'itm_OIL', quantity: 0.5, unit: 'l', scrapPercent: 0, notes: null };
const oldGasket: BomLine = { lineId: 'bln_GASKET_OLD', itemId: 'itm_GASKET_OLD', quantity: 2, unit: 'ea', scrapPercent: 0, notes: null };
const label: BomLine = { lineId: 'bln_LABEL', itemId: 'itm_LABEL', quantity: 1, unit: null, scrapPercent: 0, notes: null };
const newGasket: BomLine = { lineId: 'bln_GASKET_NEW', itemId: 'itm_GASKET_NEW', quantity: 2, unit: 'ea', scrapPercent: 0, notes: null };
const seal: BomLine = { lineId: 'bln_SEAL', itemId: 'itm_SEAL', quantity: 4, unit: 'ea', scrapPercent: 1.5, notes: null };

/** Revision 1 of a pump assembly. */
const first: BomContent = {
  name: 'Pump assembly',
  targetItemId: 'itm_PUMP',
  status: 'draft',
  outputQuantity: 1,
  unit: 'ea',
  notes: null,
  lines: [housing, bolt, oil, oldGasket, label],
};

/**
 * Revision 2: activated; the old gasket is replaced by the new one in its place (an item change);
 * bolts 8 → 10 at 2 → 5 % scrap; oil gets a note; the label is dropped and a seal is added;
 * housing is untouched. Lines are reordered too.
 */
const second: BomContent = {
  ...first,
  status: 'active',
  lines: [newGasket, { ...oil, notes: 'ISO VG 46' }, housing, { ...bolt, quantity: 10, scrapPercent: 5 }, seal],
};

function byItemId(content: BomContent): BomContent {
  return { ...content, lines: [...content.lines].sort((a, b) => a.itemId.localeCompare(b.itemId)) };
}

describe('compareContents', () => {
  it('reports header, removed, added and changed lines of a later revision', () => {
    // Act
    const comparison = compareContents(first, second);

    // Assess
    expect(comparison).toEqual({
      fields: [{ field: 'status', from: 'draft', to: 'active' }],
      components: {
        added: [newGasket, seal],
        removed: [oldGasket, label],
        changed: [
          { itemId: 'itm_OIL', changes: [{ field: 'notes', from: null, to: 'ISO VG 46' }], quantityDelta: 0 },
          {
            itemId: 'itm_BOLT',
            changes: [
              { field: 'quantity', from: 8, to: 10 },
              { field: 'scrapPercent', from: 2, to: 5 },
            ],
            quantityDelta: 2,
          },
        ],
      },
      summary: { added: 2, removed: 2, changed: 2, unchanged: 1 },
    } satisfies ContentComparison);
  });

  it('shows the reverse change when from is the later revision', () => {
    // Act
    const comparison = compareContents(second, first);

    // Assess
    expect(comparison).toEqual({
      fields: [{ field: 'status', from: 'active', to: 'draft' }],
      components: {
        added: [oldGasket, label],
        removed: [newGasket, seal],
        changed: [
          {
            itemId: 'itm_BOLT',
            changes: [
              { field: 'quantity', from: 10, to: 8 },
              { field: 'scrapPercent', from: 5, to: 2 },
            ],
            quantityDelta: -2,
          },
          { itemId: 'itm_OIL', changes: [{ field: 'notes', from: 'ISO VG 46', to: null }], quantityDelta: 0 },
        ],
      },
      summary: { added: 2, removed: 2, changed: 2, unchanged: 1 },
    } satisfies ContentComparison);
  });

  it('lists differing header fields in header field order', () => {
    // Prepare
    const renamed: BomContent = { ...first, unit: null, name: 'Pump assembly, sealed', outputQuantity: 2.5, notes: 'Batch of 2.5' };

    // Act
    const comparison = compareContents(first, renamed);

    // Assess
    expect(comparison).toEqual({
      fields: [
        { field: 'name', from: 'Pump assembly', to: 'Pump assembly, sealed' },
        { field: 'outputQuantity', from: 1, to: 2.5 },
        { field: 'unit', from: 'ea', to: null },
        { field: 'notes', from: null, to: 'Batch of 2.5' },
      ],
      components: { added: [], removed: [], changed: [] },
      summary: { added: 0, removed: 0, changed: 0, unchanged: 5 },
    } satisfies ContentComparison);
  });

  it('lists differing line fields in line field order, every one of them', () => {
    // Prepare
    const edited: BomContent = { ...first, lines: [{ ...housing, notes: 'cast', scrapPercent: 0.5, unit: 'pcs', quantity: 1.25 }] };
    const onlyHousing: BomContent = { ...first, lines: [housing] };

    // Act
    const comparison = compareContents(onlyHousing, edited);

    // Assess
    expect(comparison.components.changed).toEqual([
      {
        itemId: 'itm_HOUSING',
        changes: [
          { field: 'quantity', from: 1, to: 1.25 },
          { field: 'unit', from: 'ea', to: 'pcs' },
          { field: 'scrapPercent', from: 0, to: 0.5 },
          { field: 'notes', from: null, to: 'cast' },
        ],
        quantityDelta: 0.25,
      },
    ]);
  });

  it('finds nothing in identical content, counting every line unchanged', () => {
    // Act
    const comparison = compareContents(first, structuredClone(first));

    // Assess
    expect(comparison).toEqual({
      fields: [],
      components: { added: [], removed: [], changed: [] },
      summary: { added: 0, removed: 0, changed: 0, unchanged: 5 },
    });
  });

  it.each([
    [0.1, 0.3, 0.2],
    [0.3, 0.1, -0.2],
    [1.000001, 1.000003, 0.000002],
    [12.345678, 99.999999, 87.654321],
  ])('computes the quantity delta from %d to %d exactly: %d', (fromQuantity, toQuantity, delta) => {
    // Prepare: each case is one where plain subtraction drifts
    expect(toQuantity - fromQuantity).not.toBe(delta);
    const before: BomContent = { ...first, lines: [{ ...oil, quantity: fromQuantity }] };
    const after: BomContent = { ...first, lines: [{ ...oil, quantity: toQuantity }] };

    // Act
    const comparison = compareContents(before, after);

    // Assess
    expect(comparison.components.changed).toEqual([
      { itemId: 'itm_OIL', changes: [{ field: 'quantity', from: fromQuantity, to: toQuantity }], quantityDelta: delta },
    ]);
  });

  it('rejects content with two lines for one item', () => {
    // Prepare
    const doubled: BomContent = { ...first, lines: [bolt, { ...bolt, lineId: 'bln_BOLT_2' }] };

    // Act / Assess
    expect(() => compareContents(first, doubled)).toThrow(/itm_BOLT/);
  });

  it('does not share line objects with the compared contents', () => {
    // Act
    const comparison = compareContents(first, second);

    // Assess
    expect(comparison.components.added[0]).not.toBe(newGasket);
    expect(comparison.components.removed[0]).not.toBe(oldGasket);
  });
});

describe('applyComparison', () => {
  it('turns the earlier revision into the later one and back, up to line order', () => {
    // Act
    const forward = applyComparison(first, compareContents(first, second));
    const backward = applyComparison(second, compareContents(second, first));

    // Assess
    expect(byItemId(forward)).toEqual(byItemId(second));
    expect(byItemId(backward)).toEqual(byItemId(first));
  });

  it('keeps lines in from order, then appends the added ones in to order', () => {
    // Act
    const applied = applyComparison(first, compareContents(first, second));

    // Assess
    expect(applied.lines.map((line) => line.itemId)).toEqual(['itm_HOUSING', 'itm_BOLT', 'itm_OIL', 'itm_GASKET_NEW', 'itm_SEAL']);
  });

  it('keeps the base lineId of an item that was removed and later re-added under a new lineId', () => {
    // Prepare
    const readded: BomContent = { ...first, lines: [housing, bolt, oil, oldGasket, { ...label, lineId: 'bln_LABEL_AGAIN', quantity: 2 }] };

    // Act
    const comparison = compareContents(first, readded);
    const applied = applyComparison(first, comparison);

    // Assess
    expect(comparison.components).toEqual({
      added: [],
      removed: [],
      changed: [{ itemId: 'itm_LABEL', changes: [{ field: 'quantity', from: 1, to: 2 }], quantityDelta: 1 }],
    });
    expect(applied.lines[4]).toEqual({ ...label, quantity: 2 });
  });

  it('does not change the content it is given', () => {
    // Prepare
    const snapshot = structuredClone(first);

    // Act
    applyComparison(first, compareContents(first, second));

    // Assess
    expect(first).toEqual(snapshot);
  });

  it.each<[string, (comparison: ContentComparison) => ContentComparison]>([
    ['removes an item the content lacks', (c) => ({ ...c, components: { ...c.components, removed: [seal] } })],
    ['changes an item the content lacks', (c) => ({ ...c, components: { ...c.components, changed: [{ itemId: 'itm_SEAL', changes: [], quantityDelta: 0 }] } })],
    ['adds an item the content already has', (c) => ({ ...c, components: { ...c.components, added: [housing] } })],
    ['names a field that is not compared', (c) => ({ ...c, fields: [{ field: 'archived', from: false, to: true }] })],
  ])('rejects a comparison that %s', (_rule, misfit) => {
    // Prepare
    const comparison = misfit(compareContents(first, second));

    // Act / Assess
    expect(() => applyComparison(first, comparison)).toThrow(/does not fit/);
  });
});
