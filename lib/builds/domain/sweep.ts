import type { Build } from './build.ts';

/**
 * The build sweep (docs/boms.md "Builds"): a build not done whose last step is older than
 * `stalledAfterMs` gets its message again — the submission's send failed after its commit, or
 * every delivery so far died. A build runs from its checkpoint, so a message too many costs a
 * read, never a step twice.
 */
export async function sweepStalledBuilds(options: {
  builds: ReadonlyArray<Build | undefined>;
  now: number;
  stalledAfterMs: number;
  send: (message: { organizationId: string; jobId: string }) => Promise<void>;
  onError: (build: Build, error: unknown) => void;
}): Promise<{ resent: number }> {
  let resent = 0;
  for (const build of options.builds) {
    if (!build || build.progress.phase === 'done' || options.now - Date.parse(build.updatedAt) < options.stalledAfterMs) continue;
    try {
      await options.send({ organizationId: build.organizationId, jobId: build.id });
      resent += 1;
    } catch (error) {
      options.onError(build, error);
    }
  }
  return { resent };
}
