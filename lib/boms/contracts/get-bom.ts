import { bomPath } from './boms.ts';
import { defineOperation } from '../../platform/contracts/operation.ts';

/** GET /v1/boms/{id} (docs/boms.md). */
export const getBomContract = defineOperation({ operationId: 'getBom', request: { path: bomPath } });
