/**
 * Writes docs/openapi.json from the route table and the zod contracts (`npm run openapi`).
 * `--check` writes nothing and exits 1 when the committed file differs from the generated one.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { serializeOpenApiDocument } from '../lib/contracts/openapi.ts';

const target = fileURLToPath(new URL('../docs/openapi.json', import.meta.url));
const generated = serializeOpenApiDocument();

if (process.argv.includes('--check')) {
  let committed: string | undefined;
  try {
    committed = readFileSync(target, 'utf8');
  } catch {
    committed = undefined;
  }
  if (committed !== generated) {
    console.error(
      committed === undefined
        ? 'docs/openapi.json is missing. Run `npm run openapi` and commit the result.'
        : 'docs/openapi.json is out of date with lib/routes.ts and the zod contracts. Run `npm run openapi` and commit the result.',
    );
    process.exit(1);
  }
  console.log('docs/openapi.json is up to date.');
} else {
  writeFileSync(target, generated);
  console.log('Wrote docs/openapi.json.');
}
