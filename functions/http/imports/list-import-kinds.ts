import { chainDependencies } from '../../../lib/composition.ts';
import { cursorSecret } from '../../../lib/config/cursors.ts';
import { listImportKindsContract } from '../../../lib/contracts/imports/list-import-kinds.ts';
import { listImportKinds } from '../../../lib/domain/imports/read-imports.ts';
import { CursorCodec } from '../../../lib/domain/pagination/cursor.ts';
import { createHttpHandler } from '../../../lib/http/chain.ts';

const cursors = new CursorCodec(cursorSecret());

export const handler = createHttpHandler(listImportKindsContract, chainDependencies, async ({ query, principal }) => ({
  status: 200,
  json: listImportKinds(principal.organizationId, query, cursors),
}));
