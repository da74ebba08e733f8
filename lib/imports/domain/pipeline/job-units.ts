import type { Build } from '../../../builds/index.ts';
import type { Item } from '../../../inventory/index.ts';
import type { ReferenceEntity } from '../kind-definition.ts';
import { reloadReferences } from './references.ts';
import type { Pending, RunState } from './run-state.ts';

/**
 * Units that run as build jobs (docs/boms.md "Builds"): outside dry runs, a unit of a kind
 * with `buildJob` (the `builds` kind) is planned, submitted as a build whose claim names this
 * import, and run to its end here, in the build's own transactions, before the chunk that holds
 * its verdict is planned, after any stock change the chunk held so far committed; the verdicts of
 * builds that ended share a chunk. A crash or a redelivery finds the build by its claim and runs it on from the step it
 * reached, so the build applies once and the row is counted once, with the build's outcome.
 */

/** Submissions of one unit that may find its claim or BOM changed before the import gives up. */
const MAX_SUBMIT_ATTEMPTS = 5;

/** How the import worker submits and runs a unit's build (lib/imports/store/import-builds.ts). */
export interface ImportBuilds {
  /**
   * Submits the build, queued, with the claim of its reference, while its BOM is still at
   * `bomVersion`: `taken` when the reference was claimed meanwhile, `bom-changed` when the BOM was
   * revised or archived since the import read it.
   */
  submit(build: Build, bomVersion: number): Promise<'submitted' | 'taken' | 'bom-changed'>;
  /** Runs the build on until it ended (its final state), or undefined when the time left ran short first; `submitted`: the build this run just submitted (not read again). */
  runToEnd(organizationId: string, buildId: string, remainingMs: () => number, submitted?: Build): Promise<Build | undefined>;
}

/** Whether the entry is a unit that runs as a build job in this run. */
export function isJobUnit<Write>(run: RunState<Write>, entry: Pending): boolean {
  return Boolean(entry.unit && run.kind.buildJob && run.ports.builds && !run.dryRun);
}

/**
 * Runs the entry's build (at `index` of the pending entries) to its end and keeps its verdict for the planning of its chunk (`run.jobVerdicts`);
 * false when the time ran short first (the build is then run on by the next delivery).
 */
export async function runJobUnit<Write>(run: RunState<Write>, entry: Pending, index: number): Promise<boolean> {
  const { kind, job, ports, existing, references } = run;
  const hooks = kind.buildJob;
  const builds = ports.builds;
  const unit = entry.unit;
  if (!hooks || !builds || !unit) throw new Error('Only a unit of a kind with build jobs runs as one');
  const organizationId = job.organizationId;
  const naturalKey = kind.naturalKeyOf(unit.rows[0]);
  const remainingMs = () => (run.hasTime() ? Number.MAX_SAFE_INTEGER : 0);
  for (let attempt = 0; ; attempt += 1) {
    const plan = hooks.plan(unit, existing.get(naturalKey), job.duplicateStrategy, {
      organizationId,
      jobId: job.id,
      now: run.now(),
      rowNumber: unit.rowNumbers[0] ?? entry.position,
      // The map per entity holds that entity's records, which the generic signature cannot see.
      resolve: (entity: ReferenceEntity, key: string) => references.get(entity)?.get(key) as never,
      itemById: (id) => itemById(run, id),
    });
    if (run.stock?.hasMisses()) {
      await run.stock.readMisses();
      continue;
    }
    if ('verdict' in plan) {
      run.jobVerdicts.set(entry.position, plan.verdict);
      return true;
    }
    const submitted = 'submit' in plan ? await builds.submit(plan.submit, plan.bomVersion) : 'submitted';
    if (submitted !== 'submitted') {
      // Another door took the reference, or the BOM changed: decide again on them as they are now.
      if (attempt >= MAX_SUBMIT_ATTEMPTS) throw new Error(`The claim or BOM of build ${unit.rowNumbers[0]} keeps changing`);
      if (submitted === 'taken') {
        const claim = (await ports.records.getByNaturalKeys(organizationId, kind.entity, [naturalKey])).get(naturalKey);
        if (claim) existing.set(naturalKey, claim);
      } else await reloadReferences(ports.records, organizationId, kind, references, [entry]);
      continue;
    }
    const buildId = 'resume' in plan ? plan.resume : plan.submit.id;
    const ended = await builds.runToEnd(organizationId, buildId, remainingMs, 'submit' in plan ? plan.submit : undefined);
    run.jobProgressed = true;
    if (!ended) return false;
    // The build changed stock this run had read: the units after it read it again.
    run.stock?.forget();
    run.stockReadThrough = index;
    run.jobVerdicts.set(entry.position, hooks.verdict(ended, unit));
    return true;
  }
}

function itemById<Write>(run: RunState<Write>, id: string): Item | undefined {
  if (!run.stock) throw new Error('A kind with build jobs moves stock');
  return run.stock.item(id);
}
