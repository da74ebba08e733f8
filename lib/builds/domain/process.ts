import type { Build, BuildFailure } from './build.ts';
import type { BuildPorts } from './ports.ts';
import { BuildRunner, type RunOutcome, type StepHook } from './runner.ts';

/**
 * The build queue's processor (docs/boms.md "Builds"): runs a build from where it stands, and
 * hands it on with a fresh message when the invocation's time runs short. A build whose every
 * delivery failed is not simply marked failed — it may hold stock — but turned to unwinding, and
 * sent once more to give its holds back; unless its output was produced: that one is never
 * unwound, only sent again to record its provenance to the end.
 */
export class BuildProcessor<Write> {
  private readonly runner: BuildRunner<Write>;

  constructor(
    private readonly ports: BuildPorts<Write>,
    private readonly continueLater: (message: { organizationId: string; jobId: string }) => Promise<void>,
    afterStep?: StepHook,
  ) {
    this.runner = new BuildRunner(ports, afterStep);
  }

  async process(organizationId: string, buildId: string, remainingMs: () => number): Promise<RunOutcome> {
    const { outcome } = await this.runner.run(organizationId, buildId, remainingMs);
    if (outcome === 'handed-on') await this.continueLater({ organizationId, jobId: buildId });
    return outcome;
  }

  async fail(build: Build, failure: BuildFailure): Promise<RunOutcome> {
    const { phase } = build.progress;
    if (phase === 'done' || phase === 'unwind') return 'done';
    const stored = await this.ports.builds.get(build.organizationId, build.id);
    if (!stored || stored.build.progress.phase === 'done' || stored.build.progress.phase === 'unwind') return 'done';
    if (outputProduced(stored.build)) {
      // Its output is stock already (others may have taken it): unwinding would put its components
      // back beside it and free its reference to be built again. It only has provenance left to
      // record, so it goes on from its checkpoint with a fresh message (and the sweep's, later).
      await this.continueLater({ organizationId: build.organizationId, jobId: build.id });
      return 'handed-on';
    }
    const next: Build = { ...stored.build, progress: { ...stored.build.progress, phase: 'unwind', failure } };
    await this.ports.writer.run({ organizationId: build.organizationId, actor: build.submittedBy, traceId: null }, async () => ({
      writes: [this.ports.builds.checkpointWrite(build.organizationId, next, stored.version)],
      events: [],
      result: undefined,
    }));
    await this.continueLater({ organizationId: build.organizationId, jobId: build.id });
    return 'handed-on';
  }
}

/** The produce step committed: the build's output is on hand. */
function outputProduced(build: Build): boolean {
  return build.progress.phase === 'record' || build.progress.outputStockRecordId !== null;
}
