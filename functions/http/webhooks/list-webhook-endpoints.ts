import { chainDependencies } from '../../../lib/app/composition.ts';
import { cursorKeys } from '../../../lib/platform/config/cursors.ts';
import { requiredEnv } from '../../../lib/platform/config/env.ts';
import { listWebhookEndpointsContract } from '../../../lib/webhooks/contracts/list-webhook-endpoints.ts';
import { bindOperation } from '../../../lib/platform/contracts/operation.ts';
import { CursorCodec } from '../../../lib/platform/pagination/cursor.ts';
import { WebhookReads } from '../../../lib/webhooks/domain/reads.ts';
import { createOperationHandler } from '../../../lib/platform/http/chain.ts';
import { listWebhookEndpointsRoute } from '../../../lib/webhooks/routes.ts';
import { TABLES } from '../../../lib/platform/storage/tables.ts';
import { WebhookEndpointsStore } from '../../../lib/webhooks/store/webhook-endpoints-store.ts';

const reads = new WebhookReads({ endpoints: new WebhookEndpointsStore(requiredEnv(TABLES.inventory.envVar)) }, new CursorCodec(await cursorKeys()));

export const handler = createOperationHandler(
  bindOperation(listWebhookEndpointsRoute, listWebhookEndpointsContract),
  chainDependencies,
  async ({ query, principal }) => {
    const page = await reads.list(principal.organizationId, { limit: query.limit, ...(query.cursor === undefined ? {} : { cursor: query.cursor }) });
    return { status: 200, json: page };
  },
);
