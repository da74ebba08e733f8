import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { callApi, createTestKey } from '../support/api.ts';
import { importAndWait } from '../support/imports.ts';

/**
 * One door (docs/inventory.md "Writing the catalog"), as a property over HTTP against `npm start`:
 * a random sequence of catalog writes (create-or-update an item or a location with some fields
 * set, some cleared) applied to one organization through a random mix of the JSON routes and the
 * `items` / `locations` imports (duplicateStrategy update) ends in exactly the state and the item
 * events of the same sequence applied to another organization through the JSON routes only.
 */

const SKUS = ['P-A', 'P-B', 'P-C'];
const CODES = ['L-A', 'L-B', 'L-C'];

const maybe = <T>(values: T[]) => fc.option(fc.constantFrom(...values), { nil: undefined });

const itemOp = fc.record({
  kind: fc.constant('item' as const),
  key: fc.constantFrom(...SKUS),
  door: fc.constantFrom('json', 'import'),
  fields: fc.record({
    name: fc.constantFrom('Widget', 'Gadget', 'Gizmo'),
    unit: maybe(['ea', 'kg', null]),
    description: maybe(['First', 'Second', null]),
    category: maybe(['Tools', null]),
    barcode: maybe(['4006381333931', null]),
    reorderPoint: maybe([0, 5, 12.5, null]),
    trackingMode: maybe(['none', 'lot', null]),
  }),
});

const locationOp = fc.record({
  kind: fc.constant('location' as const),
  key: fc.constantFrom(...CODES),
  door: fc.constantFrom('json', 'import'),
  fields: fc.record({
    name: fc.constantFrom('Main', 'Overflow'),
    type: maybe(['warehouse', 'zone', 'bin', null]),
    parentCode: maybe([...CODES, null]),
  }),
});

type Op = typeof itemOp | typeof locationOp extends fc.Arbitrary<infer Value> ? Value : never;

/** Present members only: `undefined` is a member not sent (a column absent). */
const present = (fields: Record<string, unknown>) => Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));

class Organization {
  private readonly ids = new Map<string, string>();

  private constructor(readonly key: string) {}

  static async create(): Promise<Organization> {
    return new Organization((await createTestKey()).key);
  }

  async apply(op: Op, door: 'json' | 'import'): Promise<void> {
    if (door === 'import') return this.importRow(op);
    const path = op.kind === 'item' ? '/v1/items' : '/v1/locations';
    const naturalKey = op.kind === 'item' ? 'sku' : 'code';
    const id = this.ids.get(`${op.kind}:${op.key}`) ?? (await this.lookUp(op));
    const body = present(op.fields);
    const response = id === undefined ? await this.send('POST', path, { [naturalKey]: op.key, ...body }) : await this.send('PATCH', `${path}/${id}`, body);
    const answer = (await response.json()) as { id?: string; code?: string };
    if (response.status === 201 && answer.id) this.ids.set(`${op.kind}:${op.key}`, answer.id);
    // A refusal (a parent that is unknown or makes a cycle) changes nothing, as the import's row error.
    expect([200, 201, 400], JSON.stringify(answer)).toContain(response.status);
  }

  private async importRow(op: Op): Promise<void> {
    const fields = present(op.fields);
    const columns = [op.kind === 'item' ? 'sku' : 'code', ...Object.keys(fields)];
    const cells = [op.key, ...Object.values(fields).map((value) => (value === null ? '' : String(value)))];
    const job = await importAndWait(this.key, {
      kind: op.kind === 'item' ? 'items' : 'locations',
      duplicateStrategy: 'update',
      file: `${columns.join(',')}\n${cells.join(',')}\n`,
    });
    // A row error (an unknown parent, a cycle) changes nothing, as the JSON route's 400.
    expect(['succeeded', 'completed_with_errors']).toContain(job.status);
  }

  private async lookUp(op: Op): Promise<string | undefined> {
    const query = op.kind === 'item' ? `/v1/items?sku=${op.key}&includeArchived=true` : `/v1/locations?code=${op.key}&includeArchived=true`;
    const found = ((await (await callApi(query, { key: this.key })).json()) as { data: Array<{ id: string }> }).data[0]?.id;
    if (found) this.ids.set(`${op.kind}:${op.key}`, found);
    return found;
  }

  private send(method: 'POST' | 'PATCH', path: string, body: unknown) {
    return callApi(path, {
      method,
      key: this.key,
      headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      body: JSON.stringify(body),
    });
  }

  /** The catalog as the reads answer it, without what differs between organizations by nature (ids, times). */
  async state(): Promise<unknown> {
    const strip = ({ id: _id, createdAt: _c, updatedAt: _u, ...rest }: Record<string, unknown>) => rest;
    const items = ((await (await callApi('/v1/items?includeArchived=true&limit=200', { key: this.key })).json()) as { data: Record<string, unknown>[] }).data;
    const locations = ((await (await callApi('/v1/locations?includeArchived=true&limit=200', { key: this.key })).json()) as { data: Record<string, unknown>[] })
      .data;
    return { items: items.map(strip), locations: locations.map(strip) };
  }

  /** The item events in feed order, without ids and times. */
  async itemEvents(): Promise<unknown[]> {
    const events: unknown[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 50; page += 1) {
      const response = await callApi(`/v1/events?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { key: this.key });
      const body = (await response.json()) as { data: Array<{ type: string; data: Record<string, unknown> }>; page: { nextCursor: string } };
      for (const event of body.data) {
        if (event.type !== 'item.created' && event.type !== 'item.updated') continue;
        const { id: _id, createdAt: _c, updatedAt: _u, ...item } = event.data.item as Record<string, unknown>;
        events.push({ type: event.type, item, changedFields: event.data.changedFields, previous: event.data.previous });
      }
      if (body.data.length === 0) break;
      cursor = body.page.nextCursor;
    }
    return events;
  }
}

describe('catalog writes through both doors (property)', () => {
  it(
    'a random mix of JSON catalog writes and items / locations imports ends in the same state and item events as the same writes over JSON only',
    { timeout: 600_000 },
    async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(fc.oneof(itemOp, locationOp), { minLength: 4, maxLength: 12 }), async (ops) => {
          // Prepare: two organizations (the submission limit is per key: at most 12 imports a run)
          const [mixed, jsonOnly] = await Promise.all([Organization.create(), Organization.create()]);

          // Act
          for (const op of ops) {
            await mixed.apply(op, op.door as 'json' | 'import');
            await jsonOnly.apply(op, 'json');
          }

          // Assess
          expect(await mixed.state()).toEqual(await jsonOnly.state());
          expect(await mixed.itemEvents()).toEqual(await jsonOnly.itemEvents());
        }),
        { numRuns: 8 },
      );
    },
  );
});
