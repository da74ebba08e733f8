import { readFileSync, writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * Writes one generated file, or with `--check` writes nothing and exits 1 when the committed file
 * differs from what would be generated, naming the command that regenerates it and its source.
 */
export function writeOrCheckGenerated(target: string, generated: string, regenerate: { command: string; from: string }): void {
  const name = relative(REPO_ROOT, target);
  if (!process.argv.includes('--check')) {
    writeFileSync(target, generated);
    console.log(`Wrote ${name}.`);
    return;
  }
  let committed: string | undefined;
  try {
    committed = readFileSync(target, 'utf8');
  } catch {
    committed = undefined;
  }
  if (committed !== generated) {
    console.error(
      committed === undefined
        ? `${name} is missing. Run \`${regenerate.command}\` and commit the result.`
        : `${name} is out of date with ${regenerate.from}. Run \`${regenerate.command}\` and commit the result.`,
    );
    process.exit(1);
  }
  console.log(`${name} is up to date.`);
}
