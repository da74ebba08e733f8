/**
 * Writes events-schema/ (JSON Schemas, examples, README) from lib/events/contracts/events.ts
 * (`npm run events-schema`). `--check` writes nothing and exits 1, listing the files, when the
 * committed files differ from the generated ones.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildEventSchemaFiles, findEventSchemaDrift } from '../lib/events/contracts/schema-files.ts';

const directory = fileURLToPath(new URL('../events-schema/', import.meta.url));
const files = buildEventSchemaFiles();
const drift = findEventSchemaDrift(directory, files);

if (process.argv.includes('--check')) {
  const problems = [
    ...drift.changed.map((path) => `  changed:    events-schema/${path}`),
    ...drift.missing.map((path) => `  missing:    events-schema/${path}`),
    ...drift.unexpected.map((path) => `  unexpected: events-schema/${path}`),
  ];
  if (problems.length > 0) {
    console.error(
      `events-schema/ is out of date with lib/events/contracts/events.ts:\n${problems.join('\n')}\nRun \`npm run events-schema\` and commit the result.`,
    );
    process.exit(1);
  }
  console.log(`events-schema/ is up to date (${files.length} files).`);
} else {
  for (const path of drift.unexpected) rmSync(join(directory, path));
  for (const file of files) {
    const target = join(directory, file.path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, file.content);
  }
  const touched = drift.changed.length + drift.missing.length + drift.unexpected.length;
  console.log(`Wrote ${files.length} files to events-schema/ (${touched === 0 ? 'no changes' : `${touched} changed, added or removed`}).`);
}
