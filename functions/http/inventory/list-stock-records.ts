import { chainDependencies } from '../../../lib/app/composition.ts';
import { cursorKeys } from '../../../lib/platform/config/cursors.ts';
import { listStockRecordsContract } from '../../../lib/inventory/contracts/operations.ts';
import { bindOperation } from '../../../lib/platform/contracts/operation.ts';
import { CursorCodec } from '../../../lib/platform/pagination/cursor.ts';
import { createOperationHandler } from '../../../lib/platform/http/chain.ts';
import { listStockRecordsRoute } from '../../../lib/inventory/routes.ts';
import { inventoryReads } from './reads.ts';

const reads = inventoryReads(new CursorCodec(await cursorKeys()));

export const handler = createOperationHandler(
  bindOperation(listStockRecordsRoute, listStockRecordsContract),
  chainDependencies,
  async ({ query, principal }) => {
    const { limit, cursor, ...filter } = query;
    const page = await reads.stockRecords(principal.organizationId, filter, { limit, ...(cursor === undefined ? {} : { cursor }) });
    return { status: 200, json: page };
  },
);
