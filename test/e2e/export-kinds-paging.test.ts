import { describe, expect, it } from 'vitest';
import { EXPORT_KINDS } from '../../lib/exports/domain/kinds.ts';
import { callApi, createTestKey } from '../support/api.ts';
import { expectProblem } from '../support/problem.ts';

/** `GET /v1/exports/kinds` pages as every list does (docs/api-guide.md "Lists and cursors"). */

interface KindsPage {
  data: Array<{ kind: string }>;
  page: { nextCursor: string | null };
}

async function kindsPage(key: string, query: string): Promise<KindsPage> {
  const response = await callApi(`/v1/exports/kinds${query}`, { key });
  expect(response.status).toBe(200);
  return (await response.json()) as KindsPage;
}

describe('GET /v1/exports/kinds with cursor and limit', () => {
  it('pages through every kind with limit, each once, the last page without a cursor', async () => {
    // Prepare
    const { key } = await createTestKey();

    // Act
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: KindsPage = await kindsPage(key, `?limit=3${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`);
      seen.push(...page.data.map((kind) => kind.kind));
      cursor = page.page.nextCursor;
      pages += 1;
    } while (cursor !== null && pages < 10);

    // Assess
    expect(seen).toEqual(EXPORT_KINDS.map((kind) => kind.kind));
    expect(pages).toBe(Math.ceil(EXPORT_KINDS.length / 3));
  });

  it('answers every kind in one page by default', async () => {
    // Prepare
    const { key } = await createTestKey();

    // Act
    const page = await kindsPage(key, '');

    // Assess
    expect(page.data).toHaveLength(EXPORT_KINDS.length);
    expect(page.page.nextCursor).toBeNull();
  });

  it('refuses a tampered cursor, a cursor of another organization or route, and a limit out of range with 400', async () => {
    // Prepare
    const { key } = await createTestKey();
    const { key: otherKey } = await createTestKey();
    const cursor = (await kindsPage(key, '?limit=1')).page.nextCursor ?? '';
    const importKindsBody = (await (await callApi('/v1/imports/kinds?limit=1', { key })).json()) as KindsPage;
    const tampered = `${cursor.slice(0, -2)}${cursor.endsWith('AA') ? 'BB' : 'AA'}`;

    // Act
    const tamperedResponse = await callApi(`/v1/exports/kinds?cursor=${encodeURIComponent(tampered)}`, { key });
    const foreignResponse = await callApi(`/v1/exports/kinds?cursor=${encodeURIComponent(cursor)}`, { key: otherKey });
    const otherRouteResponse = await callApi(`/v1/exports/kinds?cursor=${encodeURIComponent(importKindsBody.page.nextCursor ?? '')}`, { key });
    const zeroLimit = await callApi('/v1/exports/kinds?limit=0', { key });
    const bigLimit = await callApi('/v1/exports/kinds?limit=201', { key });

    // Assess
    expect(cursor).not.toBe('');
    await expectProblem(tamperedResponse, 400, 'customer-api.pagination.invalid-cursor');
    await expectProblem(foreignResponse, 400, 'customer-api.pagination.invalid-cursor');
    await expectProblem(otherRouteResponse, 400, 'customer-api.pagination.invalid-cursor');
    expect((await expectProblem(zeroLimit, 400, 'customer-api.validation.failed')).errors).toEqual([
      expect.objectContaining({ name: 'limit', code: 'out-of-range' }),
    ]);
    expect((await expectProblem(bigLimit, 400, 'customer-api.validation.failed')).errors).toEqual([
      expect.objectContaining({ name: 'limit', code: 'out-of-range' }),
    ]);
  });
});
