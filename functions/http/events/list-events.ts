import { chainDependencies } from '../../../lib/composition.ts';
import { cursorSecret } from '../../../lib/config/cursors.ts';
import { requiredEnv } from '../../../lib/config/env.ts';
import { listEventsContract } from '../../../lib/contracts/feed.ts';
import { EventFeed } from '../../../lib/domain/events/read-feed.ts';
import { CursorCodec } from '../../../lib/domain/pagination/cursor.ts';
import { createHttpHandler } from '../../../lib/http/chain.ts';
import { EventsStore } from '../../../lib/store/events-store.ts';
import { TABLES } from '../../../lib/store/tables.ts';

const feed = new EventFeed(new EventsStore(requiredEnv(TABLES.events.envVar)), new CursorCodec(cursorSecret()));

export const handler = createHttpHandler(listEventsContract, chainDependencies, async ({ query, principal }) => {
  const { data, page } = await feed.read(principal.organizationId, query);
  return { status: 200, json: { data, page } };
});
