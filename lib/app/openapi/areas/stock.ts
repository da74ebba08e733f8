import type { STOCK_ROUTES } from '../../../stock/routes.ts';
import { stockChangeSchema } from '../../../stock/contracts/changes.ts';
import {
  adjustStockContract,
  countStockContract,
  getStockChangeContract,
  receiveStockContract,
  transferStockContract,
} from '../../../stock/contracts/operations.ts';
import type { OpenApiArea } from './types.ts';

/** The Stock area in the OpenAPI document. */
export const stockOpenApi = {
  tag: { name: 'Stock', description: 'Stock writes over JSON, all lines or none, with compare-and-set; the changes they made.' },
  operations: {
    adjustStock: { contract: adjustStockContract, response: stockChangeSchema },
    transferStock: { contract: transferStockContract, response: stockChangeSchema },
    countStock: { contract: countStockContract, response: stockChangeSchema },
    receiveStock: { contract: receiveStockContract, response: stockChangeSchema },
    getStockChange: { contract: getStockChangeContract, response: stockChangeSchema },
  },
  problemCodes: {
    adjustStock: {
      409: [
        'customer-api.stock.quantity-stale',
        'customer-api.stock.insufficient-stock',
        'customer-api.stock.already-applied',
        'customer-api.request.conflict',
        'customer-api.inventory.item-archived',
        'customer-api.inventory.location-archived',
      ],
    },
    transferStock: {
      409: [
        'customer-api.stock.quantity-stale',
        'customer-api.stock.insufficient-stock',
        'customer-api.stock.already-applied',
        'customer-api.request.conflict',
        'customer-api.inventory.item-archived',
        'customer-api.inventory.location-archived',
      ],
    },
    // A count sets on-hand: never short of stock.
    countStock: {
      409: [
        'customer-api.stock.quantity-stale',
        'customer-api.stock.already-applied',
        'customer-api.request.conflict',
        'customer-api.inventory.item-archived',
        'customer-api.inventory.location-archived',
      ],
    },
    // Receipts only add: never short of stock; compare-and-set only where a line asks for it.
    receiveStock: {
      409: [
        'customer-api.stock.quantity-stale',
        'customer-api.stock.already-applied',
        'customer-api.request.conflict',
        'customer-api.inventory.item-archived',
        'customer-api.inventory.location-archived',
      ],
    },
  },
} satisfies OpenApiArea<typeof STOCK_ROUTES>;
