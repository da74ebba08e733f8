import { chainDependencies } from '../../../lib/composition.ts';
import { cursorKeys } from '../../../lib/config/cursors.ts';
import { requiredEnv } from '../../../lib/config/env.ts';
import { listEventsContract } from '../../../lib/contracts/feed.ts';
import { bindOperation } from '../../../lib/contracts/operation.ts';
import { EventFeed } from '../../../lib/domain/events/read-feed.ts';
import { CursorCodec } from '../../../lib/domain/pagination/cursor.ts';
import { createOperationHandler } from '../../../lib/http/chain.ts';
import { countFeedPage } from '../../../lib/metrics.ts';
import { listEventsRoute } from '../../../lib/routes/events.ts';
import { EventsStore } from '../../../lib/store/events-store.ts';
import { TABLES } from '../../../lib/store/tables.ts';

const feed = new EventFeed(new EventsStore(requiredEnv(TABLES.events.envVar)), new CursorCodec(await cursorKeys()));

export const handler = createOperationHandler(bindOperation(listEventsRoute, listEventsContract), chainDependencies, async ({ query, principal }) => {
  const { data, page } = await feed.read(principal.organizationId, query);
  countFeedPage();
  return { status: 200, json: { data, page } };
});
