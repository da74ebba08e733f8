import { chainDependencies } from '../../../lib/composition.ts';
import { cursorKeys } from '../../../lib/config/cursors.ts';
import { requiredEnv } from '../../../lib/config/env.ts';
import { listWebhookEndpointsContract } from '../../../lib/contracts/webhooks/list-webhook-endpoints.ts';
import { bindOperation } from '../../../lib/contracts/operation.ts';
import { CursorCodec } from '../../../lib/domain/pagination/cursor.ts';
import { WebhookReads } from '../../../lib/domain/webhooks/reads.ts';
import { createOperationHandler } from '../../../lib/http/chain.ts';
import { listWebhookEndpointsRoute } from '../../../lib/routes/webhooks.ts';
import { TABLES } from '../../../lib/store/tables.ts';
import { WebhookEndpointsStore } from '../../../lib/store/webhook-endpoints-store.ts';

const reads = new WebhookReads({ endpoints: new WebhookEndpointsStore(requiredEnv(TABLES.inventory.envVar)) }, new CursorCodec(await cursorKeys()));

export const handler = createOperationHandler(bindOperation(listWebhookEndpointsRoute, listWebhookEndpointsContract), chainDependencies, async ({ query, principal }) => {
  const page = await reads.list(principal.organizationId, { limit: query.limit, ...(query.cursor === undefined ? {} : { cursor: query.cursor }) });
  return { status: 200, json: page };
});
