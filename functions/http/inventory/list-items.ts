import { chainDependencies } from '../../../lib/composition.ts';
import { cursorKeys } from '../../../lib/config/cursors.ts';
import { listItemsContract } from '../../../lib/contracts/inventory/operations.ts';
import { bindOperation } from '../../../lib/contracts/operation.ts';
import { CursorCodec } from '../../../lib/domain/pagination/cursor.ts';
import { createOperationHandler } from '../../../lib/http/chain.ts';
import { listItemsRoute } from '../../../lib/routes/inventory.ts';
import { itemReads } from './reads.ts';

const reads = itemReads(new CursorCodec(await cursorKeys()));

export const handler = createOperationHandler(bindOperation(listItemsRoute, listItemsContract), chainDependencies, async ({ query, principal }) => {
  const { limit, cursor, ...filter } = query;
  const page = await reads.items(principal.organizationId, filter, { limit, ...(cursor === undefined ? {} : { cursor }) });
  return { status: 200, json: page };
});
