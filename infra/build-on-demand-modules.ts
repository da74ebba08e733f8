import { writeOnDemandModules } from './on-demand-modules.ts';

/**
 * `node --import tsx infra/build-on-demand-modules.ts <entry> <asset directory>`: the
 * `afterBundling` command ApiFunction adds for an entry with on-demand modules
 * (infra/on-demand-modules.ts). Fails the synth if the build fails or yields nothing.
 */

const [entry, directory] = process.argv.slice(2);
if (!entry || !directory) throw new Error('usage: build-on-demand-modules.ts <entry> <asset directory>');
const written = await writeOnDemandModules(entry, directory);
if (written.length === 0) throw new Error(`${entry} has no on-demand modules (infra/on-demand-modules.ts)`);
