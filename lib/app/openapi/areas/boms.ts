import type { BOM_ROUTES } from '../../../boms/routes.ts';
import { compareBomRevisionsContract } from '../../../boms/contracts/compare-bom-revisions.ts';
import { createBomContract } from '../../../boms/contracts/create-bom.ts';
import { getBomContract } from '../../../boms/contracts/get-bom.ts';
import { getBomRevisionContract } from '../../../boms/contracts/get-bom-revision.ts';
import { listBomBuildsContract } from '../../../boms/contracts/list-bom-builds.ts';
import { listBomRevisionsContract } from '../../../boms/contracts/list-bom-revisions.ts';
import { listBomsContract } from '../../../boms/contracts/list-boms.ts';
import {
  bomCompareSchema,
  bomDetailSchema,
  bomRevisionDetailSchema,
  bomRevisionsPageSchema,
  bomSummariesPageSchema,
  buildsPageSchema,
} from '../../../boms/contracts/responses.ts';
import { updateBomContract } from '../../../boms/contracts/update-bom.ts';
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
