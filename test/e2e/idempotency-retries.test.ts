import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { callApi, createTestKey } from '../support/api.ts';
import { keyWithItems, postBom } from '../support/boms.ts';
import { importForm, postImport, rawMultipart } from '../support/imports.ts';
import { expectProblem } from '../support/problem.ts';

/**
 * Corrected retries on every write route over HTTP (docs/api-guide.md "Idempotency"): a 4xx
 * decided before the write (invalid content, an unknown reference or id, a stale revision) is not
 * stored, whether it was found before the transaction or by its checks, so the corrected request
 * sent with the same Idempotency-Key runs. A uniqueness conflict the commit itself met is stored.
 */

const UNKNOWN_ITEM = 'itm_01J0000000000000000000000Z';
const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');

function link(key: string, idempotencyKey: string, body: unknown) {
  return callApi('/v1/attachments/links', {
    method: 'POST',
    key,
    headers: { 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
    body: JSON.stringify(body),
  });
}

function upload(key: string, idempotencyKey: string, targetId: string, content: Buffer) {
  const { body, contentType } = rawMultipart([
    { name: 'TargetKind', value: 'item' },
    { name: 'TargetId', value: targetId },
    { name: 'File', value: content, fileName: 'datasheet.pdf', contentType: 'application/pdf' },
  ]);
  return callApi('/v1/attachments/upload', { method: 'POST', key, headers: { 'content-type': contentType, 'idempotency-key': idempotencyKey }, body });
}

function put(key: string, idempotencyKey: string, bomId: string, body: unknown, headers: Record<string, string> = {}) {
  return callApi(`/v1/boms/${bomId}`, {
    method: 'PUT',
    key,
    headers: { 'idempotency-key': idempotencyKey, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

function remove(key: string, idempotencyKey: string, id: string) {
  return callApi(`/v1/attachments/${id}`, { method: 'DELETE', key, headers: { 'idempotency-key': idempotencyKey } });
}

function bomBody(itemIds: string[], overrides: Record<string, unknown> = {}) {
  return {
    code: `BOM-${randomUUID().slice(0, 8)}`,
    name: 'Assembly',
    targetItemId: itemIds[0],
    components: [{ itemId: itemIds[1], quantity: 2 }],
    ...overrides,
  };
}

async function createdBom(key: string, itemIds: string[]) {
  const response = await postBom(key, bomBody(itemIds));
  expect(response.status).toBe(201);
  return { id: ((await response.json()) as { id: string }).id, etag: response.headers.get('etag') ?? '' };
}

/** The request ran (it is no replay) and answered `status`; returns its body. */
async function expectRan(response: Response, status: number): Promise<string> {
  const body = await response.text();
  expect(response.status, body).toBe(status);
  expect(response.headers.get('idempotent-replayed')).toBeNull();
  return body;
}

describe('a corrected retry with the same Idempotency-Key runs', () => {
  it.each([
    ['a URL that is not https', { url: 'ftp://example.com/x' }, 'not-https'],
    ['an unknown target', { targetId: UNKNOWN_ITEM }, 'unknown-target'],
  ])('POST /v1/attachments/links after 400 for %s', async (_label, wrong, code) => {
    // Prepare
    const { key, itemIds } = await keyWithItems(1);
    const idempotencyKey = randomUUID();
    const valid = { targetKind: 'item', targetId: itemIds[0], url: 'https://example.com/datasheet' };
    const refused = await link(key, idempotencyKey, { ...valid, ...wrong });
    // Act
    const corrected = await link(key, idempotencyKey, valid);
    // Assess
    const problem = await expectProblem(refused, 400);
    expect(JSON.stringify(problem)).toContain(code);
    await expectRan(corrected, 201);
  });

  it.each([
    ['an empty file', (itemId: string) => ({ targetId: itemId, content: Buffer.alloc(0) })],
    ['an unknown target', () => ({ targetId: UNKNOWN_ITEM, content: PDF })],
  ])('POST /v1/attachments/upload after 400 for %s', async (_label, wrong) => {
    // Prepare
    const { key, itemIds } = await keyWithItems(1);
    const itemId = itemIds[0] ?? '';
    const idempotencyKey = randomUUID();
    const { targetId, content } = wrong(itemId);
    const refused = await upload(key, idempotencyKey, targetId, content);
    // Act
    const corrected = await upload(key, idempotencyKey, itemId, PDF);
    // Assess
    await expectProblem(refused, 400);
    await expectRan(corrected, 200);
  });

  it.each([
    [
      'an unknown targetItemId (checked inside the transaction)',
      (itemIds: string[]) => ({ targetItemId: UNKNOWN_ITEM, components: [{ itemId: itemIds[1], quantity: 2 }] }),
    ],
    ['an unknown component item', () => ({ components: [{ itemId: UNKNOWN_ITEM, quantity: 2 }] })],
  ])('POST /v1/boms after 400 for %s', async (_label, wrong) => {
    // Prepare
    const { key, itemIds } = await keyWithItems(2);
    const idempotencyKey = randomUUID();
    const valid = bomBody(itemIds);
    const refused = await postBom(key, { ...valid, ...wrong(itemIds) }, idempotencyKey);
    // Act
    const corrected = await postBom(key, valid, idempotencyKey);
    // Assess
    await expectProblem(refused, 400, 'customer-api.validation.failed');
    await expectRan(corrected, 201);
  });

  it('POST /v1/boms keeps a code-taken 409 the commit met: the same key replays it', async () => {
    // Prepare
    const { key, itemIds } = await keyWithItems(2);
    const first = bomBody(itemIds);
    expect((await postBom(key, first)).status).toBe(201);
    const idempotencyKey = randomUUID();
    const taken = await postBom(key, { ...first, name: 'Again' }, idempotencyKey);
    // Act
    const replay = await postBom(key, { ...first, name: 'Again' }, idempotencyKey);
    // Assess
    await expectProblem(taken, 409, 'customer-api.boms.code-taken');
    expect(replay.status).toBe(409);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
  });

  it('PUT /v1/boms/{id} after 404 for an unknown BOM', async () => {
    // Prepare
    const { key, itemIds } = await keyWithItems(2);
    const bom = await createdBom(key, itemIds);
    const idempotencyKey = randomUUID();
    const { code: _code, ...body } = bomBody(itemIds, { name: 'Renamed' });
    const refused = await put(key, idempotencyKey, 'bom_01J0000000000000000000000Z', body);
    // Act
    const corrected = await put(key, idempotencyKey, bom.id, body);
    // Assess
    await expectProblem(refused, 404, 'customer-api.boms.not-found');
    await expectRan(corrected, 200);
  });

  it.each([
    ['an unknown component item', { components: [{ itemId: UNKNOWN_ITEM, quantity: 1 }] }, 400, 'customer-api.validation.failed'],
    ['a stale expectedRevisionNumber', { expectedRevisionNumber: 7 }, 409, 'customer-api.boms.revision-conflict'],
  ])('PUT /v1/boms/{id} after a refusal for %s', async (_label, wrong, status, code) => {
    // Prepare
    const { key, itemIds } = await keyWithItems(2);
    const bom = await createdBom(key, itemIds);
    const idempotencyKey = randomUUID();
    const { code: _code, ...body } = bomBody(itemIds, { name: 'Renamed' });
    const refused = await put(key, idempotencyKey, bom.id, { ...body, ...wrong });
    // Act
    const corrected = await put(key, idempotencyKey, bom.id, { ...body, expectedRevisionNumber: 1 });
    // Assess
    await expectProblem(refused, status, code);
    await expectRan(corrected, 200);
  });

  it('PUT /v1/boms/{id} after a stale If-Match: the same body with the fresh ETag runs, it is not the stored 409', async () => {
    // Prepare: the client read the BOM, then someone else changed it
    const { key, itemIds } = await keyWithItems(2);
    const bom = await createdBom(key, itemIds);
    const { code: _code, ...body } = bomBody(itemIds, { name: 'Mine' });
    const other = await put(key, randomUUID(), bom.id, { ...body, name: 'Theirs' }, { 'if-match': bom.etag });
    expect(other.status).toBe(200);
    const idempotencyKey = randomUUID();
    const stale = await put(key, idempotencyKey, bom.id, body, { 'if-match': bom.etag });
    const reread = await callApi(`/v1/boms/${bom.id}`, { key });
    // Act
    const fresh = await put(key, idempotencyKey, bom.id, body, { 'if-match': reread.headers.get('etag') ?? '' });
    // Assess
    await expectProblem(stale, 409, 'customer-api.boms.revision-conflict');
    const updated = JSON.parse(await expectRan(fresh, 200)) as { name: string };
    expect(updated.name).toBe('Mine');
  });

  it('POST /v1/imports/jobs after 404 for an unknown kind', async () => {
    // Prepare
    const { key } = await createTestKey();
    const idempotencyKey = randomUUID();
    const refused = await postImport(key, importForm({ kind: 'no-such-kind' }), {}, idempotencyKey);
    // Act
    const corrected = await postImport(key, importForm({ kind: 'items' }), {}, idempotencyKey);
    // Assess
    await expectProblem(refused, 404, 'customer-api.imports.unknown-kind');
    await expectRan(corrected, 202);
  });

  it('DELETE /v1/attachments/{id} after 404 for an unknown id', async () => {
    // Prepare
    const { key, itemIds } = await keyWithItems(1);
    const created = await link(key, randomUUID(), { targetKind: 'item', targetId: itemIds[0], url: 'https://example.com/a' });
    const { id } = (await created.json()) as { id: string };
    const idempotencyKey = randomUUID();
    const refused = await remove(key, idempotencyKey, 'att_01J0000000000000000000000Z');
    // Act
    const corrected = await remove(key, idempotencyKey, id);
    // Assess
    await expectProblem(refused, 404, 'customer-api.attachments.not-found');
    await expectRan(corrected, 204);
  });
});

describe('concurrent deletes of one attachment', () => {
  it('delete it once; every other delete is told 404 not-found, never a conflict', async () => {
    // Prepare
    const { key, itemIds } = await keyWithItems(1);
    const created = await link(key, randomUUID(), { targetKind: 'item', targetId: itemIds[0], url: 'https://example.com/a' });
    const { id } = (await created.json()) as { id: string };
    // Act
    const responses = await Promise.all(Array.from({ length: 6 }, () => remove(key, randomUUID(), id)));
    // Assess
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([204, 404, 404, 404, 404, 404]);
    for (const response of responses.filter((candidate) => candidate.status === 404)) await expectProblem(response, 404, 'customer-api.attachments.not-found');
  });
});
