/**
 * Writes lib/domain/imports/kind-summaries.generated.json, what `GET /v1/imports/kinds` lists,
 * from the registry of lib/domain/imports/kinds.ts (`npm run import-kinds`). The list function
 * serves the file instead of importing the registry, which would bundle every kind's row parser
 * (docs/performance.md "Bundles"). `--check` writes nothing and exits 1 when the file is stale;
 * test/unit/imports/kind-summaries.test.ts fails on it too.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { IMPORT_KINDS, kindSummary } from '../lib/domain/imports/kinds.ts';

const target = fileURLToPath(new URL('../lib/domain/imports/kind-summaries.generated.json', import.meta.url));
const generated = `${JSON.stringify(IMPORT_KINDS.map(kindSummary), null, 2)}\n`;

if (process.argv.includes('--check')) {
  let committed: string | undefined;
  try {
    committed = readFileSync(target, 'utf8');
  } catch {
    committed = undefined;
  }
  if (committed !== generated) {
    console.error('lib/domain/imports/kind-summaries.generated.json is out of date with the import kinds. Run `npm run import-kinds` and commit the result.');
    process.exit(1);
  }
  console.log('lib/domain/imports/kind-summaries.generated.json is up to date.');
} else {
  writeFileSync(target, generated);
  console.log('Wrote lib/domain/imports/kind-summaries.generated.json.');
}
