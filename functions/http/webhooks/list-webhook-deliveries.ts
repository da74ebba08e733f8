import { chainDependencies } from '../../../lib/app/composition.ts';
import { cursorKeys } from '../../../lib/platform/config/cursors.ts';
import { requiredEnv } from '../../../lib/platform/config/env.ts';
import { listWebhookDeliveriesContract } from '../../../lib/webhooks/contracts/list-webhook-deliveries.ts';
import { bindOperation } from '../../../lib/platform/contracts/operation.ts';
import { CursorCodec } from '../../../lib/platform/pagination/cursor.ts';
import { WebhookReads } from '../../../lib/webhooks/domain/reads.ts';
import { createOperationHandler } from '../../../lib/platform/http/chain.ts';
import { listWebhookDeliveriesRoute } from '../../../lib/webhooks/routes.ts';
import { TABLES } from '../../../lib/platform/storage/tables.ts';
import { WebhookDeliveryLog } from '../../../lib/webhooks/store/webhook-delivery-log.ts';
import { WebhookEndpointsStore } from '../../../lib/webhooks/store/webhook-endpoints-store.ts';

const table = requiredEnv(TABLES.inventory.envVar);
const reads = new WebhookReads({ endpoints: new WebhookEndpointsStore(table), deliveries: new WebhookDeliveryLog(table) }, new CursorCodec(await cursorKeys()));

export const handler = createOperationHandler(
  bindOperation(listWebhookDeliveriesRoute, listWebhookDeliveriesContract),
  chainDependencies,
  async ({ path, query, principal }) => {
    const { limit, cursor, eventId, status } = query;
    const page = await reads.deliveries(principal.organizationId, path.id, {
      limit,
      ...(cursor === undefined ? {} : { cursor }),
      ...(eventId === undefined ? {} : { eventId }),
      ...(status === undefined ? {} : { status }),
    });
    return { status: 200, json: page };
  },
);
