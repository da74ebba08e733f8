import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { BOM_JSON_BODY_MAX_BYTES, BOM_LIMITS } from '../../lib/boms/domain/bom.ts';
import { callApi, createTestKey } from '../support/api.ts';
import { worstCaseBomBody, worstCaseUnit } from '../support/bom-worst-case.ts';
import { postBom, putBom } from '../support/boms.ts';
import { allRowErrors, importAndWait, itemsOf } from '../support/imports.ts';
import { expectProblem } from '../support/problem.ts';

/**
 * BOMs of 500 lines over HTTP (docs/boms.md "Model"), created once for the file: the largest BOM
 * as the API takes it, every text at its longest in characters of 3 UTF-8 bytes (a body of about
 * 400 KB, a stored BOM and revision close to DynamoDB's 400 KB, a response kept for replays in
 * parts), read back whole, revised, compared; the 501st line refused on POST, PUT and in the
 * `boms` import, which creates a BOM of 500 lines in one job. The worst case's sizes are measured
 * in test/unit/boms/bom-worst-case-size.test.ts; the DynamoDB requests of these routes on a BOM
 * of 500 lines in test/integration/request-counts.test.ts.
 */

interface Line {
  lineId: string;
  itemId: string;
  quantity: number;
  unit: string | null;
  scrapPercent: number;
  notes: string | null;
}

interface Detail {
  id: string;
  code: string;
  lines: Line[];
  revision: { id: string; number: number };
}

const LINES = BOM_LIMITS.components;
const UNIT = worstCaseUnit('wide');
const csv = (...lines: string[]) => `${lines.join('\n')}\n`;

let key = '';
/** The target item's id, then 501 components' (one more than a BOM may have). */
let target = '';
let parts: string[] = [];
let skuOf = new Map<string, string>();
let body: ReturnType<typeof worstCaseBomBody>;
let idempotencyKey = '';
let createdStatus = 0;
let createdText = '';
let createdETag = '';

beforeAll(async () => {
  // Items kept in the longest unit there may be, so every line may name it
  const created = await createTestKey();
  key = created.key;
  const skus = ['T-500', ...Array.from({ length: LINES + 1 }, (_, index) => `P-${String(index + 1).padStart(3, '0')}`)];
  const items = await importAndWait(key, {
    kind: 'items',
    duplicateStrategy: 'fail',
    file: csv('sku,name,unit', ...skus.map((sku) => `${sku},Part ${sku},${UNIT}`)),
  });
  expect(items.status).toBe('succeeded');
  const stored = await itemsOf(created.record.organizationId, skus);
  const ids = skus.map((sku) => stored.get(sku)?.record.id ?? '');
  [target = '', ...parts] = ids;
  skuOf = new Map(skus.map((sku, index) => [ids[index] ?? '', sku]));

  body = worstCaseBomBody({ itemIds: parts.slice(0, LINES), targetItemId: target, text: 'wide' });
  idempotencyKey = randomUUID();
  const response = await postBom(key, body, idempotencyKey);
  createdStatus = response.status;
  createdText = await response.text();
  createdETag = response.headers.get('etag') ?? '';
}, 120_000);

const createdBom = () => JSON.parse(createdText) as Detail;

describe('a BOM of 500 lines, every text at its longest', () => {
  it('POST answers 201 with all 500 lines in order, each its own lineId; the same Idempotency-Key replays it byte for byte', async () => {
    // Act
    const replay = await postBom(key, body, idempotencyKey);

    // Assess
    expect(Buffer.byteLength(JSON.stringify(body))).toBeGreaterThan(256 * 1024);
    expect(createdStatus, createdText.slice(0, 500)).toBe(201);
    const bom = createdBom();
    expect(bom.lines.map((line) => line.itemId)).toEqual(parts.slice(0, LINES));
    expect(new Set(bom.lines.map((line) => line.lineId)).size).toBe(LINES);
    expect(bom.lines.every((line) => line.notes === body.components[0]?.notes && line.unit === UNIT)).toBe(true);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await replay.text()).toBe(createdText);
  });

  it('GET reads it back whole: the 500 lines of the create, their lineIds included', async () => {
    // Act
    const response = await callApi(`/v1/boms/${createdBom().id}`, { key });

    // Assess
    expect(response.status).toBe(200);
    expect(response.headers.get('etag')).toBe(createdETag);
    expect(await response.json()).toEqual(createdBom());
  });

  it('PUT of three changed lines writes revision 2 with its summary; lineIds stay; compare 1 → 2 shows exactly those lines', async () => {
    // Prepare: line 1 gets another quantity, line 2 other notes, line 3 goes, the 501st item comes
    const before = createdBom();
    const { code: _code, ...content } = body;
    const [first, second, , ...rest] = content.components;
    const added = { itemId: parts[LINES] ?? '', quantity: 3, unit: null, scrapPercent: 0, notes: null };
    const components = [{ ...first, quantity: 2 }, { ...second, notes: 'checked' }, ...rest, added];

    // Act
    const response = await putBom(key, before.id, { ...content, components }, { 'If-Match': createdETag });
    const updated = (await response.json()) as Detail;
    const revisions = (await (await callApi(`/v1/boms/${before.id}/revisions`, { key })).json()) as {
      data: Array<{ id: string; number: number; summary: unknown }>;
    };
    const [one, two] = revisions.data;
    const comparison = (await (await callApi(`/v1/boms/${before.id}/revisions/compare?fromRevisionId=${one?.id}&toRevisionId=${two?.id}`, { key })).json()) as {
      components: { added: Line[]; removed: Line[]; changed: Array<{ itemId: string; changes: Array<{ field: string }> }> };
      summary: unknown;
    };

    // Assess
    expect(response.status).toBe(200);
    expect(updated.revision.number).toBe(2);
    expect(updated.lines).toHaveLength(LINES);
    const lineIdOf = (bom: Detail) => new Map(bom.lines.map((line) => [line.itemId, line.lineId]));
    const [beforeIds, afterIds] = [lineIdOf(before), lineIdOf(updated)];
    expect(parts.slice(0, LINES).filter((id, index) => index !== 2 && afterIds.get(id) !== beforeIds.get(id))).toEqual([]);
    expect(afterIds.get(added.itemId)).toMatch(/^lin_/);
    expect([...beforeIds.values()]).not.toContain(afterIds.get(added.itemId));
    expect(revisions.data.map(({ number, summary }) => [number, summary])).toEqual([
      [1, { added: LINES, removed: 0, changed: 0 }],
      [2, { added: 1, removed: 1, changed: 2 }],
    ]);
    expect(comparison.summary).toEqual({ added: 1, removed: 1, changed: 2, unchanged: LINES - 3 });
    expect(comparison.components.added.map((line) => skuOf.get(line.itemId))).toEqual(['P-501']);
    expect(comparison.components.removed.map((line) => skuOf.get(line.itemId))).toEqual(['P-003']);
    expect(comparison.components.changed.map(({ itemId, changes }) => [skuOf.get(itemId), changes.map((change) => change.field)])).toEqual([
      ['P-001', ['quantity']],
      ['P-002', ['notes']],
    ]);
  });

  it('501 lines: 400 on POST and PUT, a validation problem on /components that says the limit; a body over 1 MiB: 413', async () => {
    // Prepare
    const tooMany = [...body.components, { itemId: parts[LINES] ?? '', quantity: 1 }];
    const { code: _code, ...content } = body;

    // Act
    const created = await postBom(key, { ...body, code: 'ANOTHER', components: tooMany });
    const updated = await putBom(key, createdBom().id, { ...content, components: tooMany });
    const padded = await callApi('/v1/boms', {
      method: 'POST',
      key,
      headers: { 'idempotency-key': randomUUID(), 'content-type': 'application/json' },
      body: JSON.stringify({ ...body, code: 'PADDED' }) + ' '.repeat(BOM_JSON_BODY_MAX_BYTES),
    });

    // Assess
    for (const response of [created, updated]) {
      const problem = await expectProblem(response, 400, 'customer-api.validation.failed');
      expect(problem.errors).toEqual([{ location: 'body', pointer: '/components', code: 'too-long', message: 'A BOM has at most 500 component lines.' }]);
    }
    await expectProblem(padded, 413, 'customer-api.request.too-large');
  });

  it('the boms import creates a BOM of 500 lines in one job, and applies none of one of 501 (invalid-value on bomCode)', async () => {
    // Prepare: IMP-500 and IMP-501 in one file, their rows interleaved
    const notes = body.components[0]?.notes ?? '';
    const rows = (code: string, count: number) => parts.slice(0, count).map((id) => `${code},T-500,${skuOf.get(id)},1.5,${UNIT},12.5,${notes}`);
    const [large, tooLarge] = [rows('IMP-500', LINES), rows('IMP-501', LINES + 1)];
    const file = csv(
      'bomCode,targetSku,componentSku,quantity,unit,scrapPercent,notes',
      ...tooLarge.flatMap((row, index) => [row, large[index]].filter((line) => line !== undefined)),
    );

    // Act
    const job = await importAndWait(key, { kind: 'boms', duplicateStrategy: 'fail', file }, 120_000);
    const { errors } = await allRowErrors(key, job.id);
    const list = (await (await callApi('/v1/boms?q=IMP-', { key })).json()) as { data: Array<{ id: string; code: string; lineCount: number }> };
    const imported = list.data.find((bom) => bom.code === 'IMP-500');
    const detail = (await (await callApi(`/v1/boms/${imported?.id}`, { key })).json()) as Detail;

    // Assess
    expect(job).toMatchObject({ status: 'completed_with_errors', counts: { totalRows: 2 * LINES + 1, created: LINES, failed: LINES + 1 } });
    expect(errors.find((error) => error.code !== 'group-has-errors')).toMatchObject({
      rowNumber: 1,
      column: 'bomCode',
      code: 'invalid-value',
      message: 'A BOM has at most 500 component lines; this one has 501.',
    });
    expect(list.data.map(({ code, lineCount }) => [code, lineCount])).toEqual([['IMP-500', LINES]]);
    expect(detail.lines.map((line) => line.itemId)).toEqual(parts.slice(0, LINES));
    expect(detail.lines.every((line) => line.notes === notes && line.unit === UNIT && line.scrapPercent === 12.5)).toBe(true);
  });
});
