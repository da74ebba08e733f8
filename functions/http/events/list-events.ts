import { chainDependencies } from '../../../lib/app/composition.ts';
import { cursorKeys } from '../../../lib/platform/config/cursors.ts';
import { requiredEnv } from '../../../lib/platform/config/env.ts';
import { listEventsContract } from '../../../lib/events/contracts/feed.ts';
import { bindOperation } from '../../../lib/platform/contracts/operation.ts';
import { EventFeed } from '../../../lib/events/domain/read-feed.ts';
import { CursorCodec } from '../../../lib/platform/pagination/cursor.ts';
import { createOperationHandler } from '../../../lib/platform/http/chain.ts';
import { countFeedPage } from '../../../lib/platform/observability/metrics.ts';
import { listEventsRoute } from '../../../lib/events/routes.ts';
import { EventsStore } from '../../../lib/events/store/events-store.ts';
import { TABLES } from '../../../lib/platform/storage/tables.ts';

const feed = new EventFeed(new EventsStore(requiredEnv(TABLES.events.envVar)), new CursorCodec(await cursorKeys()));

export const handler = createOperationHandler(bindOperation(listEventsRoute, listEventsContract), chainDependencies, async ({ query, principal }) => {
  const { data, page } = await feed.read(principal.organizationId, query);
  countFeedPage();
  return { status: 200, json: { data, page } };
});
