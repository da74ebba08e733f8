import { z } from 'zod';
import { writeChainDependencies } from '../../lib/app/composition-writes.ts';
import { NotFoundError } from '../../lib/platform/core/errors.ts';
import type { Item } from '../../lib/inventory/domain/item.ts';
import { newRecordId } from '../../lib/inventory/domain/records.ts';
import { bindOperation, type OperationContract } from '../../lib/platform/contracts/operation.ts';
import { createOperationHandler } from '../../lib/platform/http/chain.ts';
import type { RouteDefinition } from '../../lib/platform/contracts/route-types.ts';
import { AuditStore } from '../../lib/audit/store/audit-store.ts';
import { InventoryStore } from '../../lib/inventory/store/inventory-store.ts';
import { TransactionWriter } from '../../lib/platform/dynamo/transaction-writer.ts';
import { EventsStore } from '../../lib/events/store/events-store.ts';
import { TABLES } from '../../lib/platform/storage/tables.ts';
import { apiGatewayEvent, invocationContext } from '../../local/api-gateway-events.ts';

/**
 * A test-only write route that creates an item, run through the real chain, the real writer and
 * the inventory store's entity layer on the local stack: what every production write route does
 * (records, audit entry, events and Idempotency-Key completion in one transaction), for the
 * write-path suites. The API itself creates items through imports; docs/contributing.md shows
 * how a real write route is added.
 */

export const widgetBody = z.strictObject({
  name: z.string().min(1).max(50),
  failWith: z.enum(['not-found', 'conflict', 'crash-after-commit', 'crash-before-commit']).optional(),
});

export const widgetRoute: RouteDefinition = {
  operationId: 'testCreateItem',
  method: 'POST',
  path: '/v1/test/items',
  scope: 'imports:write',
  submission: false,
  handler: 'test/support/widgets.ts',
  summary: 'Test: create an item',
  tag: 'Imports',
  requestBody: { mediaType: 'json' },
  success: { status: 201, description: 'created', mediaType: 'json' },
  errorStatuses: [400, 404, 409],
  access: { tables: { inventory: 'read-write' } },
};

export const widgetContract = { operationId: 'testCreateItem', request: { body: widgetBody } } satisfies OperationContract;

const inventory = () => new InventoryStore(process.env[TABLES.inventory.envVar] ?? '');

/** The sku a `conflict` request asks for; the suite's helper has already given it to another item. */
export const TAKEN_SKU = 'W-TAKEN';

const handler = createOperationHandler(bindOperation(widgetRoute, widgetContract), writeChainDependencies, async ({ body, principal, commit }) => {
  const { name, failWith } = body;
  if (failWith === 'not-found') throw new NotFoundError('items', 'No such parent item.');
  if (failWith === 'crash-before-commit') throw new Error('simulated crash before commit');
  const id = newRecordId('item');
  const item = newItem(id, failWith === 'conflict' ? TAKEN_SKU : `W-${id.slice(-10)}`, name);
  if (failWith === 'conflict') await takeSku(principal.organizationId, TAKEN_SKU);
  const result = await commit(
    async () => ({
      writes: inventory().createWrites(principal.organizationId, 'item', item),
      // Audit kinds are the API's published set (docs/api-guide.md), which has no item kind: this
      // test-only route files its entry under one of them; the suites read it back by that kind.
      audit: { kind: 'bom.created' as const, target: { kind: 'item', id }, summary: `item ${item.sku} created`, changes: [] },
      events: [{ type: 'item.created' as const, data: { item } }],
      result: { id, name },
    }),
    (created) => ({ status: 201, json: created, headers: { Location: `/v1/test/items/${created.id}` } }),
  );
  if (failWith === 'crash-after-commit') throw new Error('simulated crash after commit');
  return result;
});

function newItem(id: string, sku: string, name: string): Item {
  const now = new Date().toISOString();
  return {
    id,
    sku,
    name,
    unit: 'ea',
    description: null,
    category: null,
    barcode: null,
    reorderPoint: null,
    trackingMode: 'none',
    createdAt: now,
    updatedAt: now,
  };
}

/** Another item takes `sku` first (no event, no audit), unless one already has it. */
async function takeSku(organizationId: string, sku: string): Promise<void> {
  if ((await inventory().getByNaturalKeys(organizationId, 'item', [sku])).size > 0) return;
  const other = newItem(newRecordId('item'), sku, 'taken');
  await new TransactionWriter({ events: process.env[TABLES.events.envVar] ?? '', audit: process.env[TABLES.audit.envVar] ?? '' }).run(
    { organizationId, actor: { type: 'system', id: 'widgets' }, traceId: null },
    async () => ({ writes: inventory().createWrites(organizationId, 'item', other), events: [], result: undefined }),
  );
}

export interface WidgetCall {
  key: string;
  idempotencyKey?: string;
  body?: unknown;
  rawBody?: string;
}

export async function postWidget(call: WidgetCall) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (call.idempotencyKey !== undefined) headers['idempotency-key'] = call.idempotencyKey;
  const event = apiGatewayEvent(widgetRoute, { key: call.key, headers, body: call.rawBody ?? JSON.stringify(call.body ?? { name: 'bolt' }) });
  const response = await handler(event, invocationContext(event));
  return { status: response.statusCode ?? 0, headers: response.headers, body: String(response.body ?? ''), json: () => JSON.parse(String(response.body)) };
}

/** How many items the route created: the items named by the organization's item.created events that exist. */
export async function widgetsOf(organizationId: string): Promise<number> {
  const ids = (await eventsOf(organizationId)).map((event) => (event.envelope.data as { item: Item }).item.id);
  return (await inventory().getByIds(organizationId, 'item', ids)).size;
}

/** The audit events widget writes produced (key creation writes its own `api-key.created`). */
export async function auditOf(organizationId: string) {
  return (await new AuditStore(process.env[TABLES.audit.envVar] ?? '').list(organizationId, { limit: 200, kind: 'bom.created' })).events;
}

export async function eventsOf(organizationId: string) {
  return new EventsStore(process.env[TABLES.events.envVar] ?? '').readFrom(organizationId, 1, 200);
}
