import { randomUUID } from 'node:crypto';
import { BomCommands, type CreateBomInput } from '../../lib/boms/domain/commands.ts';
import type { BuildProvenance } from '../../lib/boms/domain/records.ts';
import { newId } from '../../lib/platform/core/ids.ts';
import { BomsStore } from '../../lib/boms/store/boms-store.ts';
import { callApi, createTestKey } from './api.ts';
import { tableName, transactionWriter } from './events.ts';
import { importAndWait, itemsOf } from './imports.ts';

/** BOM test helpers on the local stack: keys with items to name, BOMs created in bulk, build provenance. */

export const bomsStore = () => new BomsStore(tableName('inventory'));

/** The unit of the items `keyWithItems` makes: BI-3 is kept in `kg` (a BOM line naming it may say so), the others in `ea`. */
export const keyWithItemsUnit = (sku: string) => (sku === 'BI-3' ? 'kg' : 'ea');

/** A key of a new organization, with `count` items (created by an items import) and their ids in order. */
export async function keyWithItems(count: number) {
  const created = await createTestKey();
  const organizationId = created.record.organizationId;
  const skus = Array.from({ length: count }, (_, index) => `BI-${index + 1}`);
  await importAndWait(created.key, { file: `sku,name,unit\n${skus.map((sku) => `${sku},Item ${sku},${keyWithItemsUnit(sku)}`).join('\n')}\n` });
  const items = await itemsOf(organizationId, skus);
  return { key: created.key, organizationId, keyId: created.record.keyId, itemIds: skus.map((sku) => items.get(sku)?.record.id ?? '') };
}

export function postBom(key: string, body: unknown, idempotencyKey: string = randomUUID()) {
  return callApi('/v1/boms', {
    method: 'POST',
    key,
    headers: { 'idempotency-key': idempotencyKey, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
}

export function putBom(key: string, id: string, body: unknown, headers: Record<string, string> = {}) {
  return callApi(`/v1/boms/${id}`, {
    method: 'PUT',
    key,
    headers: { 'idempotency-key': randomUUID(), 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

/** Creates BOMs through the real command and writer, in process (faster than HTTP for hundreds). */
export async function createBomsDirectly(organizationId: string, inputs: CreateBomInput[]): Promise<string[]> {
  const store = bomsStore();
  // Every item "exists": lookups find it, and its in-transaction check is one that always passes.
  const commands = new BomCommands({
    boms: store,
    items: {
      getByIds: async (_org, _type, ids) => new Map([...ids].map((id) => [id, { record: {} as never, version: 1 }])),
      existsCheck: (_org, _type, id) => ({
        item: {
          ConditionCheck: { TableName: tableName('inventory'), Key: { pk: `TEST#absent#${id}`, sk: 'NONE' }, ConditionExpression: 'attribute_not_exists(pk)' },
        },
      }),
      // Read items are checked unchanged only for lines that name a unit; these BOMs name none.
      unchangedCheck: () => {
        throw new Error('createBomsDirectly takes BOMs whose lines name no unit');
      },
    },
  });
  const writer = transactionWriter();
  const ids: string[] = [];
  for (const input of inputs) {
    const committed = await writer.run({ organizationId, actor: { type: 'system', id: 'bom-tests' }, traceId: null }, () =>
      commands.create(organizationId, 'key_test', input),
    );
    ids.push(committed.result.bom.id);
  }
  return ids;
}

/** A build's provenance as the stock flows will write it. */
export async function recordBuild(organizationId: string, build: Omit<BuildProvenance, 'id'>): Promise<BuildProvenance> {
  const full = { ...build, id: newId('bld') };
  await transactionWriter().run({ organizationId, actor: { type: 'system', id: 'bom-tests' }, traceId: null }, async () => ({
    writes: bomsStore().buildWrites(organizationId, full),
    events: [],
    result: undefined,
  }));
  return full;
}
