import { chainDependencies } from '../../../lib/app/composition.ts';
import { cursorKeys } from '../../../lib/platform/config/cursors.ts';
import { requiredEnv } from '../../../lib/platform/config/env.ts';
import { bindOperation } from '../../../lib/platform/contracts/operation.ts';
import { listReservationsContract } from '../../../lib/reservations/contracts/operations.ts';
import { CursorCodec } from '../../../lib/platform/pagination/cursor.ts';
import { cursorPage } from '../../../lib/platform/pagination/page.ts';
import { createOperationHandler } from '../../../lib/platform/http/chain.ts';
import { listReservationsRoute } from '../../../lib/reservations/routes.ts';
import { ReservationsStore } from '../../../lib/reservations/store/reservations-store.ts';
import { TABLES } from '../../../lib/platform/storage/tables.ts';

const store = new ReservationsStore(requiredEnv(TABLES.inventory.envVar));
const cursors = new CursorCodec(await cursorKeys());

export const handler = createOperationHandler(
  bindOperation(listReservationsRoute, listReservationsContract),
  chainDependencies,
  async ({ query, principal }) => {
    const { organizationId } = principal;
    const filters = {
      ...(query.status === undefined ? {} : { status: query.status }),
      ...(query.itemId === undefined ? {} : { itemId: query.itemId }),
      ...(query.reference === undefined ? {} : { reference: query.reference }),
    };
    const page = await cursorPage(cursors, { organizationId, endpoint: 'GET /v1/reservations', filters }, query.cursor, (after) =>
      store.page(organizationId, filters, after, query.limit),
    );
    return { status: 200, json: page };
  },
);
