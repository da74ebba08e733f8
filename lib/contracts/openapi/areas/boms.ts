import type { BOM_ROUTES } from '../../../routes/boms.ts';
import { compareBomRevisionsContract } from '../../boms/compare-bom-revisions.ts';
import { createBomContract } from '../../boms/create-bom.ts';
import { getBomContract } from '../../boms/get-bom.ts';
import { getBomRevisionContract } from '../../boms/get-bom-revision.ts';
import { listBomBuildsContract } from '../../boms/list-bom-builds.ts';
import { listBomRevisionsContract } from '../../boms/list-bom-revisions.ts';
import { listBomsContract } from '../../boms/list-boms.ts';
import { bomCompareSchema, bomDetailSchema, bomRevisionDetailSchema, bomRevisionsPageSchema, bomSummariesPageSchema, buildsPageSchema } from '../../boms/responses.ts';
import { updateBomContract } from '../../boms/update-bom.ts';
import type { OpenApiArea } from './types.ts';

/** The BOMs area in the OpenAPI document. */
export const bomsOpenApi = {
  tag: { name: 'Boms', description: 'Bills of materials: list, create, read and update BOMs; builds; revisions and their comparison.' },
  operations: {
    listBoms: { contract: listBomsContract, response: bomSummariesPageSchema },
    createBom: { contract: createBomContract, response: bomDetailSchema },
    getBom: { contract: getBomContract, response: bomDetailSchema },
    updateBom: { contract: updateBomContract, response: bomDetailSchema },
    listBomBuilds: { contract: listBomBuildsContract, response: buildsPageSchema },
    listBomRevisions: { contract: listBomRevisionsContract, response: bomRevisionsPageSchema },
    compareBomRevisions: { contract: compareBomRevisionsContract, response: bomCompareSchema },
    getBomRevision: { contract: getBomRevisionContract, response: bomRevisionDetailSchema },
  },
  problemCodes: {
    createBom: { 409: ['customer-api.boms.code-taken'] },
    updateBom: { 409: ['customer-api.boms.revision-conflict'] },
  },
} satisfies OpenApiArea<typeof BOM_ROUTES>;
