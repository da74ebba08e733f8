import { describe, expect, it } from 'vitest';
import { callApi } from '../support/api.ts';
import { keyWithItems } from '../support/boms.ts';
import { allRowErrors, importAndWait } from '../support/imports.ts';

/**
 * The `boms` import kind over HTTP (docs/imports.md "Kinds", docs/boms.md): rows grouped by
 * bomCode create BOMs, a re-import with `update` writes new revisions, and a BOM with any invalid
 * row is not applied at all.
 */

interface Summary {
  id: string;
  code: string;
  name: string;
  revision: { number: number };
  lineCount: number;
}

async function bomsOf(key: string): Promise<Summary[]> {
  const response = await callApi('/v1/boms?limit=200', { key });
  return ((await response.json()) as { data: Summary[] }).data;
}

const HEADER = 'bomCode,name,targetSku,componentSku,quantity,unit,scrapPercent';

describe('POST /v1/imports/jobs with kind boms', () => {
  it('creates one BOM per bomCode from lines that need not be adjacent, each at revision 1 with its lines', async () => {
    // Prepare: BI-1..BI-4 exist; two BOMs, their lines interleaved
    const { key, itemIds } = await keyWithItems(4);
    const file = [HEADER, 'PUMP,Pump,BI-1,BI-2,2,,', 'VALVE,,BI-1,BI-3,1,kg,5', 'PUMP,,BI-1,BI-3,0.5,kg,10', ''].join('\n');

    // Act
    const job = await importAndWait(key, { kind: 'boms', duplicateStrategy: 'fail', file });
    const boms = await bomsOf(key);
    const pump = boms.find((bom) => bom.code === 'PUMP');
    const detail = (await (await callApi(`/v1/boms/${pump?.id}`, { key })).json()) as {
      targetItemId: string;
      lines: Array<{ itemId: string; quantity: number; unit: string | null; scrapPercent: number }>;
    };

    // Assess
    expect(job).toMatchObject({ status: 'succeeded', counts: { totalRows: 3, processedRows: 3, created: 3, failed: 0 } });
    // Both BOMs were created in one transaction: their ids (the list's order) share a millisecond, so sort by code.
    const byCode = [...boms].sort((a, b) => a.code.localeCompare(b.code));
    expect(byCode.map(({ code, name, revision, lineCount }) => ({ code, name, number: revision.number, lineCount }))).toEqual([
      { code: 'PUMP', name: 'Pump', number: 1, lineCount: 2 },
      { code: 'VALVE', name: 'VALVE', number: 1, lineCount: 1 },
    ]);
    expect(detail.targetItemId).toBe(itemIds[0]);
    expect(detail.lines.map(({ itemId, quantity, unit, scrapPercent }) => ({ itemId, quantity, unit, scrapPercent }))).toEqual([
      { itemId: itemIds[1], quantity: 2, unit: null, scrapPercent: 0 },
      { itemId: itemIds[2], quantity: 0.5, unit: 'kg', scrapPercent: 10 },
    ]);
  });

  it('applies none of a BOM with an invalid row (unknown-sku, invalid-number, invalid-value), and the valid BOMs', async () => {
    // Prepare
    const { key } = await keyWithItems(3);
    const file = [
      HEADER,
      'GOOD,,BI-1,BI-2,1,,',
      'BAD,,BI-1,BI-2,1,,',
      'BAD,,BI-1,NOPE,1,,',
      'BAD,,BI-1,BI-3,-2,,',
      'MIXED,,BI-1,BI-2,1,,',
      'MIXED,,BI-2,BI-3,1,,',
      'TWICE,,BI-1,BI-2,1,,',
      'TWICE,,BI-1,BI-2,3,,',
      'SELF,,BI-1,BI-1,1,,',
      'SPACE,,BI-1,BI-2,1,,',
      'SPACE ,,BI-1,BI-3,1,,',
      '',
    ].join('\n');

    // Act
    const job = await importAndWait(key, { kind: 'boms', duplicateStrategy: 'fail', file });
    const { errors } = await allRowErrors(key, job.id);

    // Assess: rows 2..4 (BAD), 5..6 (MIXED: another target), 7..8 (TWICE: a component twice), 9 (SELF), 10..11 (SPACE: one line's
    // bomCode has a trailing space, which spoils the whole BOM rather than leaving it a line short) fail; GOOD is applied
    expect(job).toMatchObject({ status: 'completed_with_errors', counts: { totalRows: 11, processedRows: 11, created: 1, failed: 10 } });
    expect(errors.map((error) => [error.rowNumber, error.column, error.code])).toEqual([
      [2, 'bomCode', 'group-has-errors'],
      [3, 'componentSku', 'unknown-sku'],
      [4, 'quantity', 'invalid-number'],
      [5, 'targetSku', 'invalid-value'],
      [6, 'targetSku', 'invalid-value'],
      [7, 'componentSku', 'invalid-value'],
      [8, 'componentSku', 'invalid-value'],
      [9, 'componentSku', 'invalid-value'],
      [10, 'bomCode', 'group-has-errors'],
      [11, 'bomCode', 'invalid-value'],
    ]);
    expect((await bomsOf(key)).map((bom) => bom.code)).toEqual(['GOOD']);
  });

  it('refuses a line whose unit is not its item’s (invalid-value on unit) and applies none of that BOM', async () => {
    // Prepare: BI-2 is kept in ea, BI-3 in kg
    const { key } = await keyWithItems(3);
    const file = [HEADER, 'FITS,,BI-1,BI-2,2,ea,', 'FITS,,BI-1,BI-3,0.5,,', 'GRAMS,,BI-1,BI-2,1,,', 'GRAMS,,BI-1,BI-3,500,g,', ''].join('\n');

    // Act
    const job = await importAndWait(key, { kind: 'boms', duplicateStrategy: 'fail', file });
    const { errors } = await allRowErrors(key, job.id);

    // Assess
    expect(job).toMatchObject({ status: 'completed_with_errors', counts: { totalRows: 4, created: 2, failed: 2 } });
    expect(errors).toContainEqual(expect.objectContaining({ rowNumber: 4, column: 'unit', value: 'g', code: 'invalid-value' }));
    expect(errors.map((error) => error.rowNumber).sort()).toEqual([3, 4]);
    expect((await bomsOf(key)).map((bom) => bom.code)).toEqual(['FITS']);
  });

  it('with update, writes a new revision only for a BOM whose lines changed; skip and fail leave BOMs as they are', async () => {
    // Prepare
    const { key } = await keyWithItems(3);
    await importAndWait(key, { kind: 'boms', duplicateStrategy: 'fail', file: [HEADER, 'A,,BI-1,BI-2,1,,', 'B,,BI-1,BI-2,1,,', ''].join('\n') });
    const changed = [HEADER, 'A,,BI-1,BI-2,1,,', 'B,,BI-1,BI-2,4,,', 'B,,BI-1,BI-3,1,,', ''].join('\n');

    // Act
    const skipped = await importAndWait(key, { kind: 'boms', duplicateStrategy: 'skip', file: changed });
    const failed = await importAndWait(key, { kind: 'boms', duplicateStrategy: 'fail', file: changed });
    const updated = await importAndWait(key, { kind: 'boms', duplicateStrategy: 'update', file: changed });
    const again = await importAndWait(key, { kind: 'boms', duplicateStrategy: 'update', file: changed });
    const boms = await bomsOf(key);
    const b = boms.find((bom) => bom.code === 'B');
    const revisions = (await (await callApi(`/v1/boms/${b?.id}/revisions`, { key })).json()) as { data: Array<{ number: number; summary: unknown }> };

    // Assess
    expect(skipped.counts).toMatchObject({ skipped: 3, created: 0, updated: 0 });
    expect(failed.counts).toMatchObject({ failed: 3 });
    expect(updated.counts).toMatchObject({ skipped: 1, updated: 2 });
    expect(again.counts).toMatchObject({ skipped: 3, updated: 0 });
    expect(boms.map((bom) => [bom.code, bom.revision.number]).sort()).toEqual([
      ['A', 1],
      ['B', 2],
    ]);
    expect(revisions.data.map((revision) => [revision.number, revision.summary])).toEqual([
      [1, { added: 1, removed: 0, changed: 0 }],
      [2, { added: 1, removed: 0, changed: 1 }],
    ]);
  });

  it('creates nothing of a BOM one of whose rows the CSV reader refused (extra-cells): the group applies whole or not at all', async () => {
    // Prepare: BI-1 (the kit), BI-2 and BI-4 (components, unit ea); the second line of KIT1 has a cell past the header
    const { key } = await keyWithItems(4);
    const file = ['bomCode,name,targetSku,componentSku,quantity', 'KIT1,Kit,BI-1,BI-2,2', 'KIT1,Kit,BI-1,BI-4,4,x', 'KIT2,Kit 2,BI-1,BI-2,1', ''].join('\n');

    // Act
    const job = await importAndWait(key, { kind: 'boms', duplicateStrategy: 'fail', file });
    const { errors } = await allRowErrors(key, job.id);

    // Assess: row 2 is refused by the reader and row 1 with it; KIT2 alone is created
    expect(job).toMatchObject({ status: 'completed_with_errors', counts: { totalRows: 3, processedRows: 3, created: 1, failed: 2 } });
    expect(errors.map((error) => [error.rowNumber, error.code])).toEqual([
      [1, 'group-has-errors'],
      [2, 'extra-cells'],
    ]);
    expect((await bomsOf(key)).map((bom) => bom.code)).toEqual(['KIT2']);
  });
});
