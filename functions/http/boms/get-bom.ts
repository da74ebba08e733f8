import { chainDependencies } from '../../../lib/composition.ts';
import { getBomContract } from '../../../lib/contracts/boms/get-bom.ts';
import { bomETag } from '../../../lib/domain/boms/commands.ts';
import { publicBom } from '../../../lib/domain/boms/views.ts';
import { createHttpHandler } from '../../../lib/http/chain.ts';
import { bomReads } from './reads.ts';

const reads = bomReads({ lists: false });

export const handler = createHttpHandler(getBomContract, chainDependencies, async ({ path, principal }) => {
  const { bom, version } = await reads.get(principal.organizationId, path.id);
  return { status: 200, json: publicBom(bom), headers: { ETag: bomETag(bom, version) } };
});
