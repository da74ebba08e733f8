import * as z from '../../platform/contracts/zod.ts';
import { defineOperation } from '../../platform/contracts/operation.ts';
import { idParam } from '../../platform/contracts/primitives.ts';
import { adjustStockBody, countStockBody, receiveStockBody, transferStockBody } from './changes.ts';

/** The request contracts of the Stock routes (docs/inventory.md "Writing stock over JSON"). */

export const adjustStockContract = defineOperation({ operationId: 'adjustStock', request: { body: adjustStockBody } });

export const transferStockContract = defineOperation({ operationId: 'transferStock', request: { body: transferStockBody } });

export const countStockContract = defineOperation({ operationId: 'countStock', request: { body: countStockBody } });

export const receiveStockContract = defineOperation({ operationId: 'receiveStock', request: { body: receiveStockBody } });

export const getStockChangeContract = defineOperation({
  operationId: 'getStockChange',
  request: { path: /* @__PURE__ */ (() => z.strictObject({ id: idParam }))() },
});
