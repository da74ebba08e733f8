import { BuildReferenceTakenError, type Build } from '../../builds/index.ts';
import { ApiError } from '../../platform/core/errors.ts';
import type { BuildPorts } from '../../builds/index.ts';
import { BuildRunner, type StepHook } from '../../builds/index.ts';
import type { ImportBuilds } from '../domain/pipeline/job-units.ts';
import { SUBMITTED_BUILD_VERSION } from '../../builds/store/index.ts';

/**
 * The builds of the `builds` import kind (docs/boms.md "Builds"): submitted as `POST /v1/builds`
 * submits them (the build, queued, and its reference's claim, in one transaction, with its audit
 * entry), and run by the import worker itself with the build queue's runner.
 */
export function importBuilds<Write>(ports: BuildPorts<Write>, afterStep?: StepHook): ImportBuilds {
  const runner = new BuildRunner(ports, afterStep);
  return {
    async submit(build: Build, bomVersion: number): Promise<'submitted' | 'taken' | 'bom-changed'> {
      const context = { organizationId: build.organizationId, actor: build.submittedBy, traceId: null };
      try {
        await ports.writer.run(context, async () => ({
          writes: [...ports.builds.createWrites(build.organizationId, build), ports.boms.unchangedCheck(build.organizationId, build.bomId, bomVersion)],
          events: [],
          audit: {
            kind: 'build.submitted',
            target: { kind: 'build', id: build.id },
            summary: `Build submitted by import ${build.importJobId ?? ''}: ${build.buildReference} (${build.quantity})`,
            changes: [],
          },
          result: undefined,
        }));
        return 'submitted';
      } catch (error) {
        if (error instanceof BuildReferenceTakenError) return 'taken';
        if (error instanceof ApiError && error.status === 409 && error.code === 'customer-api.request.conflict') return 'bom-changed';
        throw error;
      }
    },
    async runToEnd(organizationId: string, buildId: string, remainingMs: () => number, submitted?: Build): Promise<Build | undefined> {
      const { outcome, build } = await runner.run(organizationId, buildId, remainingMs, submitted && { build: submitted, version: SUBMITTED_BUILD_VERSION });
      if (outcome === 'missing') throw new Error(`Build ${buildId} of an import does not exist`);
      return outcome === 'handed-on' ? undefined : build;
    },
  };
}
