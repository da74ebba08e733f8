import { randomUUID } from 'node:crypto';
import { countDynamoDbRequests } from '../../local/dynamodb-requests.ts';
import { BUILD_LOCATION_CODE, buildWorld } from '../build-world.ts';
import { inProcessImports } from '../in-process-import.ts';
import { usualBreakdown } from './stock-adjustments.ts';
import { median, type Measure, type Suite } from './suite.ts';

/**
 * Builds as jobs (docs/boms.md "Builds"; docs/performance.md "Builds"): a build of a BOM of 1, 50
 * and 500 lines (quick: 1, 5 and 30), one unit, each line one component on one stock record,
 * timed from the submission to `succeeded`. The submission is the route's command committed
 * through the writer, the run the worker's BuildProcessor, both in this process against the
 * stack's DynamoDB Local, in invocations of the worker's timeout, each handing the rest on as the
 * worker does. No HTTP and no queue: the stack's own worker never sees these builds, and what is
 * timed is the job's work, not the queue's delivery. Every DynamoDB request of a build is counted
 * at the app's SDK client (`local/dynamodb-requests.ts`), by command: transactions per line are its
 * committed TransactWriteItems ÷ its lines. Target: a 500-line build in at most 20 s. Then the
 * import door: a `builds` file of 200 one-line builds (quick: 20) and one of a single build of the
 * largest BOM, run in process by the real pipeline, each build a job run to its end by the import.
 */

const TARGET = { lines: 500, seconds: 20 };
/** What each component holds: every build takes 1 of each of its lines' components. */
const ON_HAND = 1000;

interface BuildRun {
  seconds: number;
  invocations: number;
  transactions: number;
  requests: { total: number; byCommand: Map<string, number> };
}

const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;
const labelOf = (lines: number) => `${lines} line${lines === 1 ? '' : 's'}`;

export const buildsSuite: Suite = {
  name: 'builds',
  async run(context) {
    // Quick: past one slice of draws (lib/builds/domain/runner.ts holds 25 a transaction) at its largest, so the smoke run steps slice by slice too.
    const sizes = context.quick ? [1, 5, 30] : [1, 50, TARGET.lines];
    const runs = context.quick ? 1 : 3;
    const [{ BuildProcessor }, { SubmitBuildCommand }, { buildPorts }, { BUILD_QUEUE }, { dynamoClient }] = await Promise.all([
      import('../../lib/builds/domain/process.ts'),
      import('../../lib/builds/domain/submit.ts'),
      import('../../lib/builds/store/build-ports.ts'),
      import('../../lib/platform/storage/tables.ts'),
      import('../../lib/platform/aws/dynamodb-client.ts'),
    ]);

    const seeded = performance.now();
    const world = await buildWorld({ bomSizes: sizes, onHand: ON_HAND });
    const { organizationId } = world;
    context.log(`builds: ${Math.max(...sizes) + 1} items, their stock and ${sizes.length} BOMs made in ${((performance.now() - seeded) / 1000).toFixed(1)} s`);

    const ports = buildPorts(world.tables);
    const submitter = new SubmitBuildCommand(ports);
    // The worker's continuation message is the loop below: nothing to send.
    const processor = new BuildProcessor(ports, async () => undefined);
    const actor = { type: 'system' as const, id: 'bench' };
    const budgetMs = BUILD_QUEUE.workerTimeoutSeconds * 1000;

    /** Submits a build of one unit of the BOM of `lines` lines and runs it to its end: timed and counted. */
    const buildOnce = async (lines: number): Promise<BuildRun> => {
      const bomCode = world.bomCodes.get(lines) ?? '';
      const counter = countDynamoDbRequests(dynamoClient);
      let buildId: string;
      let invocations = 0;
      let seconds: number;
      try {
        const started = performance.now();
        const input = {
          buildReference: `BENCH-${lines}-${randomUUID().slice(0, 8)}`,
          bomCode,
          quantity: 1,
          locationCode: BUILD_LOCATION_CODE,
          outputLot: null,
          sources: [],
        };
        const { result: queued } = await ports.writer.run({ organizationId, actor, traceId: null }, () => submitter.submit(organizationId, input, actor));
        buildId = queued.id;
        let outcome: string;
        do {
          invocations += 1;
          const deadline = Date.now() + budgetMs;
          outcome = await processor.process(organizationId, buildId, () => deadline - Date.now());
        } while (outcome === 'handed-on' && invocations < 100);
        seconds = (performance.now() - started) / 1000;
      } finally {
        counter.stop();
      }
      const ended = (await ports.builds.get(organizationId, buildId))?.build;
      if (ended?.status !== 'succeeded')
        throw new Error(`builds: a build of ${labelOf(lines)} ended ${ended?.status ?? 'missing'}: ${JSON.stringify(ended?.failure)}`);
      const byCommand = new Map<string, number>();
      for (const operation of counter.operations()) byCommand.set(operation, (byCommand.get(operation) ?? 0) + 1);
      const transactions = counter.requests.filter((request) => request.operation === 'TransactWriteItems' && !request.failed).length;
      return { seconds, invocations, transactions, requests: { total: counter.requests.length, byCommand } };
    };

    // One build first, untimed: module loading and the first connections are not a build's cost.
    await buildOnce(1);
    const measured = new Map<number, BuildRun[]>(sizes.map((lines) => [lines, []]));
    for (let round = 0; round < runs; round += 1) {
      for (const lines of sizes) {
        const run = await buildOnce(lines);
        measured.get(lines)?.push(run);
        context.log(
          `build ${labelOf(lines)}: ${run.seconds.toFixed(2)} s, ${run.transactions} transactions, ${run.requests.total} requests, ${run.invocations} invocation${run.invocations === 1 ? '' : 's'}`,
        );
      }
    }

    // The import door: one file of many one-line builds and one of a BOM of the largest size, each build a job the import worker runs to its end.
    const imports = await inProcessImports();
    const importedBuilds = context.quick ? 20 : 200;
    const importFile = (rows: string[]) => `buildReference,bomCode,quantity,locationCode\n${rows.join('\n')}\n`;
    const timedImport = async (rows: string[]) => {
      const started = performance.now();
      await imports.runWhole(organizationId, 'builds', importFile(rows));
      return (performance.now() - started) / 1000;
    };
    const small = await timedImport(
      Array.from(
        { length: importedBuilds },
        (_, index) => `IMP-1-${index}-${randomUUID().slice(0, 8)},${world.bomCodes.get(1) ?? ''},1,${BUILD_LOCATION_CODE}`,
      ),
    );
    const largest = Math.max(...sizes);
    const large = await timedImport([`IMP-${largest}-${randomUUID().slice(0, 8)},${world.bomCodes.get(largest) ?? ''},1,${BUILD_LOCATION_CODE}`]);
    context.log(`imported: ${importedBuilds} one-line builds in ${small.toFixed(2)} s; one build of ${labelOf(largest)} in ${large.toFixed(2)} s`);

    const measures: Measure[] = [
      {
        name: `import of ${importedBuilds} one-line builds (builds/s)`,
        value: round(importedBuilds / small, 1),
        unit: 'builds/s',
        note: 'one file, in process; each build a job the import worker runs to its end before the next row',
      },
      {
        name: `import of one build of ${labelOf(largest)} (s)`,
        value: round(large, 3),
        unit: 's',
        note: 'one file of one row, in process: submission, every step and the row verdict',
      },
    ];
    for (const lines of sizes) {
      const builds = measured.get(lines) ?? [];
      const label = labelOf(lines);
      const of = runs === 1 ? '1 run' : `median of ${runs} runs`;
      const transactions = median(builds.map((run) => run.transactions));
      const { usual, share } = usualBreakdown(builds.map((run) => run.requests));
      measures.push(
        {
          name: `build ${label} (s)`,
          value: round(median(builds.map((run) => run.seconds)), 3),
          unit: 's',
          ...(lines === TARGET.lines ? { target: { comparison: '<=' as const, value: TARGET.seconds } } : {}),
          note: `${of}, one unit; submission committed → succeeded, in process, invocations of ${BUILD_QUEUE.workerTimeoutSeconds} s (${median(builds.map((run) => run.invocations))})`,
        },
        {
          name: `build ${label}: transactions per line`,
          value: round(transactions / lines),
          unit: 'transactions',
          note: `${transactions} committed TransactWriteItems per build (${of}), the submission's included`,
        },
        {
          name: `build ${label}: DynamoDB requests`,
          value: median(builds.map((run) => run.requests.total)),
          unit: 'requests',
          note: `${of}; ${usual}${builds.length > 1 ? ` in ${share} of ${builds.length}` : ''}`,
        },
      );
    }
    return measures;
  },
};
