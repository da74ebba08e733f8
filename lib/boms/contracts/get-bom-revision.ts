import { bomRevisionPath } from './boms.ts';
import { defineOperation } from '../../platform/contracts/operation.ts';

/** GET /v1/boms/{id}/revisions/{revisionId} (docs/boms.md "Revisions"). */
export const getBomRevisionContract = defineOperation({ operationId: 'getBomRevision', request: { path: bomRevisionPath } });
