import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { callApi } from '../support/api.ts';
import { createBomsDirectly, keyWithItems, postBom, putBom, recordBuild } from '../support/boms.ts';
import { expectProblem } from '../support/problem.ts';

/**
 * The BOM routes over HTTP against `npm start`'s server (docs/boms.md): create, read, update,
 * archive, list with filters, revisions, compare and build provenance, with every documented
 * status. Auth, scopes, 404/405 and rate limits are covered for every route by the route matrix.
 */

interface Detail {
  id: string;
  code: string;
  name: string;
  status: string;
  outputQuantity: number;
  archived: boolean;
  lines: Array<{ lineId: string; itemId: string; quantity: number; unit: string | null; scrapPercent: number; notes: string | null }>;
  revision: { id: string; number: number };
}

interface Page<T> {
  data: T[];
  page: { nextCursor: string | null };
}

function bomBody(itemIds: string[], overrides: Record<string, unknown> = {}) {
  return {
    code: `BOM-${randomUUID().slice(0, 8)}`,
    name: 'Widget assembly',
    targetItemId: itemIds[0],
    components: [
      { itemId: itemIds[1], quantity: 2 },
      { itemId: itemIds[2], quantity: 0.5, scrapPercent: 10, unit: 'kg' },
    ],
    ...overrides,
  };
}

/** The create body without `code`: what a PUT takes. */
function updateBody(body: ReturnType<typeof bomBody>, overrides: Record<string, unknown> = {}) {
  const { code: _unused, ...rest } = body;
  return { ...rest, ...overrides };
}

/** A build of `bom` that consumed `source` (what the stock flows will record). */
function sampleBuild(bom: Detail, itemIds: string[], source: string) {
  return {
    bomId: bom.id,
    revision: bom.revision,
    reference: 'B-1',
    quantity: 5,
    outputItemId: itemIds[0] ?? '',
    outputStockRecordId: 'stk_01J00000000000000000000009',
    locationId: 'loc_01J00000000000000000000001',
    consumed: [{ sourceStockRecordId: source, itemId: itemIds[1] ?? '', quantity: 10, lot: 'L-7' }],
    builtAt: '2026-11-22T10:00:00.000Z',
  };
}

async function created(key: string, body: unknown): Promise<{ bom: Detail; etag: string }> {
  const response = await postBom(key, body);
  expect(response.status).toBe(201);
  return { bom: (await response.json()) as Detail, etag: response.headers.get('etag') ?? '' };
}

describe('POST /v1/boms', () => {
  it('creates revision 1 with defaults, stable line ids, Location and ETag', async () => {
    // Prepare
    const { key, itemIds } = await keyWithItems(3);
    const body = bomBody(itemIds);

    // Act
    const response = await postBom(key, body);
    const bom = (await response.json()) as Detail;

    // Assess
    expect(response.status).toBe(201);
    expect(response.headers.get('location')).toBe(`/v1/boms/${bom.id}`);
    expect(response.headers.get('etag')).toMatch(/^"1\.1"$/);
    expect(bom).toMatchObject({ code: body.code, status: 'draft', outputQuantity: 1, archived: false, revision: { number: 1 } });
    expect(bom.id).toMatch(/^bom_/);
    expect(bom.revision.id).toMatch(/^rev_/);
    expect(bom.lines.map(({ itemId, quantity, unit, scrapPercent, notes }) => ({ itemId, quantity, unit, scrapPercent, notes }))).toEqual([
      { itemId: itemIds[1], quantity: 2, unit: null, scrapPercent: 0, notes: null },
      { itemId: itemIds[2], quantity: 0.5, unit: 'kg', scrapPercent: 10, notes: null },
    ]);
    expect(new Set(bom.lines.map((line) => line.lineId)).size).toBe(2);
  });

  it('replays the 201 for the same Idempotency-Key and body, and refuses another body under it', async () => {
    // Prepare
    const { key, itemIds } = await keyWithItems(3);
    const idempotencyKey = randomUUID();
    const body = bomBody(itemIds);

    // Act
    const first = await postBom(key, body, idempotencyKey);
    const replay = await postBom(key, body, idempotencyKey);
    const other = await postBom(key, { ...body, name: 'Other' }, idempotencyKey);

    // Assess
    expect(first.status).toBe(201);
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await replay.text()).toBe(await first.text());
    await expectProblem(other, 409, 'customer-api.idempotency.key-reused');
  });

  it('answers 409 code-taken for a code another BOM of the organization has, and allows it in another organization', async () => {
    // Prepare
    const { key, itemIds } = await keyWithItems(3);
    const other = await keyWithItems(3);
    const body = bomBody(itemIds);
    await created(key, body);

    // Act
    const again = await postBom(key, { ...body, name: 'Again' });
    const elsewhere = await postBom(other.key, bomBody(other.itemIds, { code: body.code }));

    // Assess
    await expectProblem(again, 409, 'customer-api.boms.code-taken');
    expect(elsewhere.status).toBe(201);
  });

  it.each([
    { label: 'an unknown field', change: { colour: 'red' }, pointer: '/colour', code: 'unknown-field' },
    { label: 'a zero quantity', change: { components: [{ itemIdIndex: 1, quantity: 0 }] }, pointer: '/components/0/quantity', code: 'out-of-range' },
    { label: 'a negative quantity', change: { components: [{ itemIdIndex: 1, quantity: -1 }] }, pointer: '/components/0/quantity', code: 'out-of-range' },
    {
      label: 'a scrapPercent above 100',
      change: { components: [{ itemIdIndex: 1, quantity: 1, scrapPercent: 100.5 }] },
      pointer: '/components/0/scrapPercent',
      code: 'out-of-range',
    },
    {
      label: 'a negative scrapPercent',
      change: { components: [{ itemIdIndex: 1, quantity: 1, scrapPercent: -1 }] },
      pointer: '/components/0/scrapPercent',
      code: 'out-of-range',
    },
    {
      label: 'the same item twice',
      change: {
        components: [
          { itemIdIndex: 1, quantity: 1 },
          { itemIdIndex: 1, quantity: 2 },
        ],
      },
      pointer: '/components/1/itemId',
      code: 'invalid-value',
    },
    { label: 'no components', change: { components: [] }, pointer: '/components', code: 'too-short' },
    {
      label: 'the target item as a component',
      change: {
        components: [
          { itemIdIndex: 1, quantity: 1 },
          { itemIdIndex: 0, quantity: 1 },
        ],
      },
      pointer: '/components/1/itemId',
      code: 'invalid-value',
    },
    { label: 'an unknown status', change: { status: 'retired' }, pointer: '/status', code: 'invalid-value' },
    { label: 'a zero-width space in the code', change: { code: 'KIT\u200B' }, pointer: '/code', code: 'invalid-format' },
    {
      label: 'a bidi override in a line unit',
      change: { components: [{ itemIdIndex: 1, quantity: 1, unit: 'kg\u202E' }] },
      pointer: '/components/0/unit',
      code: 'invalid-format',
    },
  ])('answers 400 with a pointer for $label', async ({ change, pointer, code }) => {
    // Prepare
    const { key, itemIds } = await keyWithItems(3);
    const components = (change.components as Array<{ itemIdIndex: number } & Record<string, unknown>> | undefined)?.map(({ itemIdIndex, ...rest }) => ({
      itemId: itemIds[itemIdIndex],
      ...rest,
    }));
    const body = { ...bomBody(itemIds), ...change, ...(components ? { components } : {}) };

    // Act
    const problem = await expectProblem(await postBom(key, body), 400, 'customer-api.validation.failed');

    // Assess
    expect(problem.errors).toContainEqual(expect.objectContaining({ location: 'body', pointer, code }));
  });

  it('answers 400 naming each item that does not exist in the organization (another tenant’s included)', async () => {
    // Prepare
    const { key, itemIds } = await keyWithItems(3);
    const other = await keyWithItems(1);
    const body = bomBody(itemIds, {
      targetItemId: 'itm_01J0000000000000000000000Z',
      components: [
        { itemId: itemIds[1], quantity: 1 },
        { itemId: other.itemIds[0], quantity: 1 },
      ],
    });

    // Act
    const problem = await expectProblem(await postBom(key, body), 400, 'customer-api.validation.failed');

    // Assess
    expect(problem.errors).toEqual([
      expect.objectContaining({ pointer: '/targetItemId', code: 'unknown-item' }),
      expect.objectContaining({ pointer: '/components/1/itemId', code: 'unknown-item' }),
    ]);
  });
});

describe('line units', () => {
  it('accepts a line with no unit or its item’s unit, and answers 400 unit-mismatch on POST and PUT for another unit', async () => {
    // Prepare: BI-2 is kept in ea, BI-3 in kg
    const { key, itemIds } = await keyWithItems(3);
    const inUnits = (second: string | null, third: string | null) => ({
      components: [
        { itemId: itemIds[1], quantity: 2, unit: second },
        { itemId: itemIds[2], quantity: 500, unit: third },
      ],
    });
    const fitting = bomBody(itemIds, inUnits('ea', null));

    // Act
    const accepted = await postBom(key, fitting);
    const { id } = (await accepted.json()) as { id: string };
    const refusedCreate = await postBom(key, bomBody(itemIds, inUnits(null, 'g')));
    const refusedUpdate = await putBom(key, id, updateBody(fitting, inUnits('kg', 'kg')));

    // Assess
    expect(accepted.status).toBe(201);
    const created = await expectProblem(refusedCreate, 400, 'customer-api.validation.failed');
    expect(created.errors).toEqual([expect.objectContaining({ location: 'body', pointer: '/components/1/unit', code: 'unit-mismatch' })]);
    const updated = await expectProblem(refusedUpdate, 400, 'customer-api.validation.failed');
    expect(updated.errors).toEqual([expect.objectContaining({ location: 'body', pointer: '/components/0/unit', code: 'unit-mismatch' })]);
  });
});

describe('GET /v1/boms/{id}', () => {
  it('reads the BOM with its ETag; another organization’s BOM and an unknown id are 404', async () => {
    // Prepare
    const { key, itemIds } = await keyWithItems(3);
    const other = await keyWithItems(3);
    const { bom, etag } = await created(key, bomBody(itemIds));

    // Act
    const read = await callApi(`/v1/boms/${bom.id}`, { key });
    const foreign = await callApi(`/v1/boms/${bom.id}`, { key: other.key });
    const unknown = await callApi('/v1/boms/bom_01J0000000000000000000000Z', { key });

    // Assess
    expect(read.status).toBe(200);
    expect(read.headers.get('etag')).toBe(etag);
    expect(await read.json()).toEqual(bom);
    await expectProblem(foreign, 404, 'customer-api.boms.not-found');
    await expectProblem(unknown, 404, 'customer-api.boms.not-found');
  });
});

describe('PUT /v1/boms/{id}', () => {
  it('writes revision 2 for a content change, keeps line ids by item, and none for an update that changes nothing', async () => {
    // Prepare
    const { key, itemIds } = await keyWithItems(4);
    const body = bomBody(itemIds);
    const { bom } = await created(key, body);
    const changed = updateBody(body, {
      components: [
        { itemId: itemIds[1], quantity: 3 },
        { itemId: itemIds[3], quantity: 1 },
      ],
    });

    // Act
    const second = await putBom(key, bom.id, changed);
    const secondBom = (await second.json()) as Detail;
    const same = await putBom(key, bom.id, changed);
    const sameBom = (await same.json()) as Detail;

    // Assess
    expect(second.status).toBe(200);
    expect(secondBom.revision.number).toBe(2);
    expect(secondBom.lines.find((line) => line.itemId === itemIds[1])?.lineId).toBe(bom.lines.find((line) => line.itemId === itemIds[1])?.lineId);
    expect(same.status).toBe(200);
    expect(sameBom.revision).toEqual(secondBom.revision);
    const revisions = (await (await callApi(`/v1/boms/${bom.id}/revisions`, { key })).json()) as Page<{ number: number; summary: unknown }>;
    expect(revisions.data.map((revision) => [revision.number, revision.summary])).toEqual([
      [1, { added: 2, removed: 0, changed: 0 }],
      [2, { added: 1, removed: 1, changed: 1 }],
    ]);
  });

  it('answers 409 revision-conflict for a stale expectedRevisionNumber or If-Match, and accepts current ones', async () => {
    // Prepare
    const { key, itemIds } = await keyWithItems(3);
    const body = bomBody(itemIds);
    const { bom, etag } = await created(key, body);
    const moved = await putBom(key, bom.id, updateBody(body, { name: 'Renamed' }), { 'if-match': etag });
    const newEtag = moved.headers.get('etag') ?? '';

    // Act
    const staleNumber = await putBom(key, bom.id, updateBody(body, { name: 'Stale', expectedRevisionNumber: 1 }));
    const staleEtag = await putBom(key, bom.id, updateBody(body, { name: 'Stale' }), { 'if-match': etag });
    const current = await putBom(key, bom.id, updateBody(body, { name: 'Current', expectedRevisionNumber: 2 }), { 'if-match': newEtag });

    // Assess
    expect(moved.status).toBe(200);
    expect(newEtag).not.toBe(etag);
    const problem = await expectProblem(staleNumber, 409, 'customer-api.boms.revision-conflict');
    expect(problem.detail).toContain('revision 2');
    await expectProblem(staleEtag, 409, 'customer-api.boms.revision-conflict');
    expect(current.status).toBe(200);
    expect(((await current.json()) as Detail).revision.number).toBe(3);
  });

  it('lets one of two concurrent updates from the same revision win; the other is 409 and the history has no gap', async () => {
    // Prepare
    const { key, itemIds } = await keyWithItems(3);
    const body = bomBody(itemIds);
    const { bom } = await created(key, body);

    // Act
    const responses = await Promise.all(['A', 'B'].map((name) => putBom(key, bom.id, updateBody(body, { name, expectedRevisionNumber: 1 }))));

    // Assess
    expect(responses.map((response) => response.status).sort()).toEqual([200, 409]);
    await Promise.all(responses.map((response) => response.arrayBuffer()));
    const revisions = (await (await callApi(`/v1/boms/${bom.id}/revisions`, { key })).json()) as Page<{ number: number }>;
    expect(revisions.data.map((revision) => revision.number)).toEqual([1, 2]);
  });

  it('archives with archived: true (no new revision); lists hide it unless includeArchived=true', async () => {
    // Prepare
    const { key, itemIds } = await keyWithItems(3);
    const body = bomBody(itemIds);
    const { bom } = await created(key, body);

    // Act
    const archived = await putBom(key, bom.id, updateBody(body, { archived: true }));
    const hidden = (await (await callApi('/v1/boms', { key })).json()) as Page<{ id: string }>;
    const shown = (await (await callApi('/v1/boms?includeArchived=true', { key })).json()) as Page<{ id: string; archived: boolean }>;

    // Assess
    expect(archived.status).toBe(200);
    expect(await archived.json()).toMatchObject({ archived: true, revision: { number: 1 } });
    expect(hidden.data).toEqual([]);
    expect(shown.data).toEqual([expect.objectContaining({ id: bom.id, archived: true })]);
  });

  it('answers 404 for an unknown or foreign BOM and 400 for an invalid body', async () => {
    // Prepare
    const { key, itemIds } = await keyWithItems(3);
    const other = await keyWithItems(3);
    const body = bomBody(itemIds);
    const { bom } = await created(key, body);

    // Act
    const foreign = await putBom(other.key, bom.id, updateBody(bomBody(other.itemIds)));
    const unknown = await putBom(key, 'bom_01J0000000000000000000000Z', updateBody(body));
    const withCode = await putBom(key, bom.id, body);

    // Assess
    await expectProblem(foreign, 404, 'customer-api.boms.not-found');
    await expectProblem(unknown, 404, 'customer-api.boms.not-found');
    const problem = await expectProblem(withCode, 400, 'customer-api.validation.failed');
    expect(problem.errors).toContainEqual(expect.objectContaining({ pointer: '/code', code: 'unknown-field' }));
  });
});

describe('tenant isolation', () => {
  it('answers 404 on every route with an {id} for a BOM of another organization, and never lists it', async () => {
    // Prepare
    const { key, organizationId, itemIds } = await keyWithItems(3);
    const other = await keyWithItems(3);
    const body = bomBody(itemIds);
    const { bom } = await created(key, body);
    await recordBuild(organizationId, sampleBuild(bom, itemIds, 'stk_01J00000000000000000000001'));
    const paths = [
      `/v1/boms/${bom.id}`,
      `/v1/boms/${bom.id}/revisions`,
      `/v1/boms/${bom.id}/revisions/${bom.revision.id}`,
      `/v1/boms/${bom.id}/revisions/compare?fromRevisionId=${bom.revision.id}&toRevisionId=${bom.revision.id}`,
      `/v1/boms/${bom.id}/builds?sourceStockRecordId=stk_01J00000000000000000000001`,
    ];

    // Act
    const reads = await Promise.all(paths.map((path) => callApi(path, { key: other.key })));
    const write = await putBom(other.key, bom.id, updateBody(bomBody(other.itemIds)));
    const listed = (await (await callApi('/v1/boms?includeArchived=true', { key: other.key })).json()) as Page<unknown>;

    // Assess
    for (const response of [...reads, write]) await expectProblem(response, 404, 'customer-api.boms.not-found');
    expect(listed.data).toEqual([]);
  });
});

describe('GET /v1/boms', () => {
  it('pages through 250 BOMs with each filter, never skipping or repeating one, even while BOMs are created between pages', { timeout: 120_000 }, async () => {
    // Prepare: 250 BOMs; every 5th archived-free "pump" in its name, statuses in turn, two targets
    const { key, organizationId, itemIds } = await keyWithItems(3);
    const statuses = ['draft', 'active', 'obsolete'] as const;
    const inputs = Array.from({ length: 250 }, (_, index) => ({
      code: `P-${String(index).padStart(3, '0')}`,
      name: index % 5 === 0 ? `Pump ${index}` : `Valve ${index}`,
      targetItemId: index % 2 === 0 ? (itemIds[0] ?? '') : (itemIds[1] ?? ''),
      status: statuses[index % 3],
      components: [{ itemId: itemIds[2] ?? '', quantity: 1 }],
    }));
    await createBomsDirectly(organizationId, inputs);
    const walk = async (query: string) => {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const response = await callApi(`/v1/boms?limit=40${query}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { key });
        expect(response.status).toBe(200);
        const page = (await response.json()) as Page<{ code: string }>;
        seen.push(...page.data.map((bom) => bom.code));
        cursor = page.page.nextCursor;
        pages += 1;
        // A BOM created mid-walk lands after every page so far (ids grow): it never shifts them.
        if (pages === 2 && query === '') await createBomsDirectly(organizationId, [{ ...inputs[0]!, code: 'P-LATE', name: 'Late' }]);
      } while (cursor !== null);
      return seen;
    };

    // 10 archived BOMs: hidden from every walk but the one with includeArchived=true
    const archivedCodes = ['P-007', 'P-031', 'P-064', 'P-099', 'P-128', 'P-150', 'P-177', 'P-203', 'P-230', 'P-249'];
    for (const code of archivedCodes) {
      const input = inputs.find((candidate) => candidate.code === code)!;
      const id = (await (await callApi(`/v1/boms?q=${code}&limit=1`, { key })).json()) as Page<{ id: string }>;
      const { code: _code, ...content } = input;
      expect((await putBom(key, id.data[0]?.id ?? '', { ...content, archived: true })).status).toBe(200);
    }
    const visible = inputs.filter((input) => !archivedCodes.includes(input.code));

    // Act
    const withArchived = await walk('&includeArchived=true');
    const all = await walk('');
    const pumps = await walk('&q=PUMP');
    const active = await walk('&status=active');
    const targeted = await walk(`&targetItemId=${itemIds[1]}`);
    const combined = await walk(`&q=pump&status=draft&targetItemId=${itemIds[0]}`);

    // Assess
    expect(withArchived).toEqual(inputs.map((input) => input.code));
    expect(all).toEqual([...visible.map((input) => input.code), 'P-LATE']);
    expect(pumps).toEqual(visible.filter((input) => input.name.startsWith('Pump')).map((input) => input.code));
    expect(active).toEqual(visible.filter((input) => input.status === 'active').map((input) => input.code));
    expect(targeted).toEqual(visible.filter((input) => input.targetItemId === itemIds[1]).map((input) => input.code));
    expect(combined).toEqual(
      visible.filter((input) => input.name.startsWith('Pump') && input.status === 'draft' && input.targetItemId === itemIds[0]).map((input) => input.code),
    );
  });

  it('matches q within the code or within the name, never across the two', async () => {
    // Prepare: a code ending in "a" and a name starting with "b"
    const { key, organizationId, itemIds } = await keyWithItems(2);
    await createBomsDirectly(organizationId, [
      { code: 'KIT-A', name: 'Bolt kit', targetItemId: itemIds[0] ?? '', components: [{ itemId: itemIds[1] ?? '', quantity: 1 }] },
    ]);
    const search = async (q: string) => {
      const response = await callApi(`/v1/boms?q=${encodeURIComponent(q)}`, { key });
      expect(response.status).toBe(200);
      return ((await response.json()) as Page<{ code: string }>).data.map((bom) => bom.code);
    };
    // Act
    const across = await search('a\nb');
    const acrossWithSpace = await search('a b');
    const inCode = await search('it-a');
    const inName = await search('BOLT K');
    // Assess
    expect(across).toEqual([]);
    expect(acrossWithSpace).toEqual([]);
    expect(inCode).toEqual(['KIT-A']);
    expect(inName).toEqual(['KIT-A']);
  });

  it('answers 400 for an invalid filter or a cursor of other filters', async () => {
    // Prepare
    const { key, organizationId, itemIds } = await keyWithItems(3);
    await createBomsDirectly(
      organizationId,
      [1, 2, 3].map((n) => ({ code: `C-${n}`, name: `C ${n}`, targetItemId: itemIds[0] ?? '', components: [{ itemId: itemIds[1] ?? '', quantity: 1 }] })),
    );
    const first = (await (await callApi('/v1/boms?limit=1', { key })).json()) as Page<unknown>;

    // Act
    const badStatus = await callApi('/v1/boms?status=retired', { key });
    const badFlag = await callApi('/v1/boms?includeArchived=yes', { key });
    const otherFilters = await callApi(`/v1/boms?limit=1&q=c&cursor=${encodeURIComponent(first.page.nextCursor ?? '')}`, { key });

    // Assess
    await expectProblem(badStatus, 400, 'customer-api.validation.failed');
    await expectProblem(badFlag, 400, 'customer-api.validation.failed');
    await expectProblem(otherFilters, 400, 'customer-api.pagination.invalid-cursor');
  });
});

describe('revisions', () => {
  it('reads a revision’s full snapshot; a revision of another BOM of the same organization is 404', async () => {
    // Prepare
    const { key, itemIds } = await keyWithItems(3);
    const body = bomBody(itemIds);
    const { bom } = await created(key, body);
    const { bom: otherBom } = await created(key, bomBody(itemIds));

    // Act
    const own = await callApi(`/v1/boms/${bom.id}/revisions/${bom.revision.id}`, { key });
    const crossed = await callApi(`/v1/boms/${otherBom.id}/revisions/${bom.revision.id}`, { key });
    const unknownBom = await callApi(`/v1/boms/bom_01J0000000000000000000000Z/revisions`, { key });
    const badLimit = await callApi(`/v1/boms/${bom.id}/revisions?limit=0`, { key });

    // Assess
    expect(own.status).toBe(200);
    expect(await own.json()).toMatchObject({
      id: bom.revision.id,
      bomId: bom.id,
      number: 1,
      name: body.name,
      lines: bom.lines,
      summary: { added: 2, removed: 0, changed: 0 },
    });
    await expectProblem(crossed, 404, 'customer-api.boms.not-found');
    await expectProblem(unknownBom, 404, 'customer-api.boms.not-found');
    await expectProblem(badLimit, 400, 'customer-api.validation.failed');
  });

  it('compares two revisions as computed by hand, both ways; foreign revisions are 404 and missing ids 400', async () => {
    // Prepare: revision 2 renames, changes line 1's quantity and scrap, and swaps item 2 for item 3
    const { key, itemIds } = await keyWithItems(4);
    const body = bomBody(itemIds, {
      components: [
        { itemId: itemIds[1], quantity: 2, scrapPercent: 5 },
        { itemId: itemIds[2], quantity: 1 },
      ],
    });
    const { bom } = await created(key, body);
    const updated = (await (
      await putBom(
        key,
        bom.id,
        updateBody(body, {
          name: 'Renamed',
          components: [
            { itemId: itemIds[1], quantity: 2.3, scrapPercent: 7.5 },
            { itemId: itemIds[3], quantity: 4 },
          ],
        }),
      )
    ).json()) as Detail;
    const { bom: otherBom } = await created(key, bomBody(itemIds));
    const url = (from: string, to: string) => `/v1/boms/${bom.id}/revisions/compare?fromRevisionId=${from}&toRevisionId=${to}`;

    // Act
    const forward = await callApi(url(bom.revision.id, updated.revision.id), { key });
    const backward = await callApi(url(updated.revision.id, bom.revision.id), { key });
    const foreign = await callApi(url(bom.revision.id, otherBom.revision.id), { key });
    const missing = await callApi(`/v1/boms/${bom.id}/revisions/compare?fromRevisionId=${bom.revision.id}`, { key });

    // Assess
    const line = (detail: Detail, itemId: string | undefined) => detail.lines.find((candidate) => candidate.itemId === itemId);
    expect(await forward.json()).toEqual({
      bomId: bom.id,
      from: bom.revision,
      to: updated.revision,
      fields: [{ field: 'name', from: 'Widget assembly', to: 'Renamed' }],
      components: {
        added: [line(updated, itemIds[3])],
        removed: [line(bom, itemIds[2])],
        changed: [
          {
            itemId: itemIds[1],
            changes: [
              { field: 'quantity', from: 2, to: 2.3 },
              { field: 'scrapPercent', from: 5, to: 7.5 },
            ],
            quantityDelta: 0.3,
          },
        ],
      },
      summary: { added: 1, removed: 1, changed: 1, unchanged: 0 },
    });
    expect(await backward.json()).toMatchObject({
      from: updated.revision,
      to: bom.revision,
      fields: [{ field: 'name', from: 'Renamed', to: 'Widget assembly' }],
      components: { added: [line(bom, itemIds[2])], removed: [line(updated, itemIds[3])], changed: [{ itemId: itemIds[1], quantityDelta: -0.3 }] },
    });
    await expectProblem(foreign, 404, 'customer-api.boms.not-found');
    await expectProblem(missing, 400, 'customer-api.validation.failed');
  });
});

describe('GET /v1/boms/{id}/builds', () => {
  it('lists the builds of this BOM that consumed a stock record; an unknown stock record gives an empty list', async () => {
    // Prepare
    const { key, organizationId, itemIds } = await keyWithItems(3);
    const { bom } = await created(key, bomBody(itemIds));
    const source = 'stk_01J00000000000000000000001';
    const build = await recordBuild(organizationId, sampleBuild(bom, itemIds, source));

    // Act
    const found = await callApi(`/v1/boms/${bom.id}/builds?sourceStockRecordId=${source}`, { key });
    const none = await callApi(`/v1/boms/${bom.id}/builds?sourceStockRecordId=stk_01J0000000000000000000000Z`, { key });
    const missing = await callApi(`/v1/boms/${bom.id}/builds`, { key });
    const unknownBom = await callApi(`/v1/boms/bom_01J0000000000000000000000Z/builds?sourceStockRecordId=${source}`, { key });

    // Assess
    expect(await found.json()).toEqual({ data: [build], page: { nextCursor: null } });
    expect(await none.json()).toEqual({ data: [], page: { nextCursor: null } });
    await expectProblem(missing, 400, 'customer-api.validation.failed');
    await expectProblem(unknownBom, 404, 'customer-api.boms.not-found');
  });
});
