import { createBomBody } from './boms.ts';
import { defineOperation } from '../../platform/contracts/operation.ts';

/** POST /v1/boms (docs/boms.md). */
export const createBomContract = defineOperation({ operationId: 'createBom', request: { body: createBomBody } });
