import { chainDependencies } from '../../../lib/composition.ts';
import { cursorKeys } from '../../../lib/config/cursors.ts';
import { requiredEnv } from '../../../lib/config/env.ts';
import { bindOperation } from '../../../lib/contracts/operation.ts';
import { listReservationsContract } from '../../../lib/contracts/reservations/operations.ts';
import { CursorCodec } from '../../../lib/domain/pagination/cursor.ts';
import { cursorPage } from '../../../lib/domain/pagination/page.ts';
import { createOperationHandler } from '../../../lib/http/chain.ts';
import { listReservationsRoute } from '../../../lib/routes/reservations.ts';
import { ReservationsStore } from '../../../lib/store/reservations-store.ts';
import { TABLES } from '../../../lib/store/tables.ts';

const store = new ReservationsStore(requiredEnv(TABLES.inventory.envVar));
const cursors = new CursorCodec(await cursorKeys());

export const handler = createOperationHandler(bindOperation(listReservationsRoute, listReservationsContract), chainDependencies, async ({ query, principal }) => {
  const { organizationId } = principal;
  const filters = { ...(query.status === undefined ? {} : { status: query.status }), ...(query.itemId === undefined ? {} : { itemId: query.itemId }), ...(query.reference === undefined ? {} : { reference: query.reference }) };
  const page = await cursorPage(cursors, { organizationId, endpoint: 'GET /v1/reservations', filters }, query.cursor, (after) => store.page(organizationId, filters, after, query.limit));
  return { status: 200, json: page };
});
