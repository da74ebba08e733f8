import type { STOCK_ROUTES } from '../../../routes/stock.ts';
import { stockChangeSchema } from '../../stock/changes.ts';
import { adjustStockContract, getStockChangeContract } from '../../stock/operations.ts';
import type { OpenApiArea } from './types.ts';

/** The Stock area in the OpenAPI document. */
export const stockOpenApi = {
  tag: { name: 'Stock', description: 'Stock writes over JSON, all lines or none, with compare-and-set; the changes they made.' },
  operations: {
    adjustStock: { contract: adjustStockContract, response: stockChangeSchema },
    getStockChange: { contract: getStockChangeContract, response: stockChangeSchema },
  },
  problemCodes: {
    adjustStock: { 409: ['customer-api.stock.quantity-stale', 'customer-api.stock.insufficient-stock', 'customer-api.stock.already-applied'] },
  },
} satisfies OpenApiArea<typeof STOCK_ROUTES>;
