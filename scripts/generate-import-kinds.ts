/**
 * Writes lib/imports/domain/kind-summaries.generated.json, what `GET /v1/imports/kinds` lists,
 * from the registry of lib/imports/domain/kinds.ts (`npm run import-kinds`). The list function
 * serves the file instead of importing the registry, which would bundle every kind's row parser
 * (docs/performance.md "Bundles"). `--check` writes nothing and exits 1 when the file is stale;
 * test/unit/imports/kind-summaries.test.ts fails on it too.
 */
import { fileURLToPath } from 'node:url';
import { IMPORT_KINDS, kindSummary } from '../lib/imports/domain/kinds.ts';
import { writeOrCheckGenerated } from './generated-file.ts';

writeOrCheckGenerated(
  fileURLToPath(new URL('../lib/imports/domain/kind-summaries.generated.json', import.meta.url)),
  `${JSON.stringify(IMPORT_KINDS.map(kindSummary), null, 2)}\n`,
  { command: 'npm run import-kinds', from: 'the import kinds of lib/imports/domain/kinds.ts' },
);
