import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { z } from 'zod';
import { writeChainDependencies } from '../../lib/composition-writes.ts';
import { ApiError, NotFoundError } from '../../lib/domain/errors.ts';
import { newId } from '../../lib/domain/ids.ts';
import { bindOperation, type OperationContract } from '../../lib/contracts/operation.ts';
import { createOperationHandler } from '../../lib/http/chain.ts';
import type { RouteDefinition } from '../../lib/routes.ts';
import { AuditStore } from '../../lib/store/audit-store.ts';
import { documentClient } from '../../lib/store/clients.ts';
import { EventsStore } from '../../lib/store/events-store.ts';
import { TABLES } from '../../lib/store/tables.ts';
import { apiGatewayEvent, invocationContext } from './lambda-events.ts';

/**
 * A test-only write route ("widgets") run through the real chain and the real writer on the
 * local stack: what every production write route will do, without depending on one yet.
 */

export const widgetBody = z.strictObject({
  name: z.string().min(1).max(50),
  failWith: z.enum(['not-found', 'conflict', 'crash-after-commit', 'crash-before-commit']).optional(),
});

export const widgetRoute: RouteDefinition = {
  operationId: 'testCreateWidget',
  method: 'POST',
  path: '/v1/test/widgets',
  scope: 'boms:write',
  submission: false,
  handler: 'test/support/widgets.ts',
  summary: 'Test widget',
  tag: 'Boms',
  requestBody: { mediaType: 'json' },
  success: { status: 201, description: 'created', mediaType: 'json' },
  errorStatuses: [400, 404, 409],
  access: { tables: { inventory: 'read-write' } },
};

export const widgetContract = { operationId: 'testCreateWidget', request: { body: widgetBody } } satisfies OperationContract;

const inventoryTable = () => process.env[TABLES.inventory.envVar] ?? '';
const widgetPartition = (organizationId: string) => `ORG#${organizationId}#TEST`;

const handler = createOperationHandler(bindOperation(widgetRoute, widgetContract), writeChainDependencies, async ({ body, principal, commit }) => {
  const { name, failWith } = body;
  if (failWith === 'not-found') throw new NotFoundError('boms', 'No such parent widget.');
  if (failWith === 'crash-before-commit') throw new Error('simulated crash before commit');
  const id = newId('itm');
  const now = new Date().toISOString();
  const result = await commit(
    async () => ({
      writes: [
        {
          item: {
            Put: {
              TableName: inventoryTable(),
              Item: { pk: widgetPartition(principal.organizationId), sk: `WIDGET#${id}`, name },
              // 'conflict' asks for a condition that cannot hold: the commit itself refuses.
              ConditionExpression: failWith === 'conflict' ? 'attribute_exists(pk)' : 'attribute_not_exists(pk)',
            },
          },
          onConditionFailed: () => new ApiError(409, 'customer-api.boms.code-taken', 'Conflict', { detail: 'Taken.' }),
        },
      ],
      audit: { kind: 'bom.created' as const, target: { kind: 'widget', id }, summary: `widget ${name} created`, changes: [] },
      events: [
        {
          type: 'item.created' as const,
          data: {
            item: { id, sku: `W-${id.slice(-6)}`, name, unit: 'ea', description: null, category: null, barcode: null, reorderPoint: null, trackingMode: 'none', createdAt: now, updatedAt: now },
          },
        },
      ],
      result: { id, name },
    }),
    (widget) => ({ status: 201, json: widget, headers: { Location: `/v1/test/widgets/${widget.id}` } }),
  );
  if (failWith === 'crash-after-commit') throw new Error('simulated crash after commit');
  return result;
});

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

export async function widgetsOf(organizationId: string): Promise<number> {
  const result = await documentClient.send(
    new QueryCommand({
      TableName: inventoryTable(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': widgetPartition(organizationId) },
      ConsistentRead: true,
    }),
  );
  return result.Count ?? 0;
}

/** The audit events widget writes produced (key creation writes its own `api-key.created`). */
export async function auditOf(organizationId: string) {
  return (await new AuditStore(process.env[TABLES.audit.envVar] ?? '').list(organizationId, { limit: 200, kind: 'bom.created' })).events;
}

export async function eventsOf(organizationId: string) {
  const slice = await new EventsStore(process.env[TABLES.events.envVar] ?? '').readAfter(organizationId, 0, { limit: 200, budget: 200 });
  return slice.events;
}
