import { chainDependencies } from '../../../lib/composition.ts';
import { cursorKeys } from '../../../lib/config/cursors.ts';
import { requiredEnv } from '../../../lib/config/env.ts';
import { listWebhookDeliveriesContract } from '../../../lib/contracts/webhooks/list-webhook-deliveries.ts';
import { bindOperation } from '../../../lib/contracts/operation.ts';
import { CursorCodec } from '../../../lib/domain/pagination/cursor.ts';
import { WebhookReads } from '../../../lib/domain/webhooks/reads.ts';
import { createOperationHandler } from '../../../lib/http/chain.ts';
import { listWebhookDeliveriesRoute } from '../../../lib/routes/webhooks.ts';
import { TABLES } from '../../../lib/store/tables.ts';
import { WebhookDeliveryLog } from '../../../lib/store/webhook-delivery-log.ts';
import { WebhookEndpointsStore } from '../../../lib/store/webhook-endpoints-store.ts';

const table = requiredEnv(TABLES.inventory.envVar);
const reads = new WebhookReads({ endpoints: new WebhookEndpointsStore(table), deliveries: new WebhookDeliveryLog(table) }, new CursorCodec(await cursorKeys()));

export const handler = createOperationHandler(bindOperation(listWebhookDeliveriesRoute, listWebhookDeliveriesContract), chainDependencies, async ({ path, query, principal }) => {
  const { limit, cursor, eventId, status } = query;
  const page = await reads.deliveries(principal.organizationId, path.id, { limit, ...(cursor === undefined ? {} : { cursor }), ...(eventId === undefined ? {} : { eventId }), ...(status === undefined ? {} : { status }) });
  return { status: 200, json: page };
});
