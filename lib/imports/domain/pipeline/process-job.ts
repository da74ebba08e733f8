import { handOff, handoffsWithoutProgress, MAX_HANDOFFS_WITHOUT_PROGRESS } from '../../../platform/jobs/hand-off.ts';
import { TimeBudget } from '../../../platform/jobs/time-budget.ts';
import type { Item } from '../../../inventory/index.ts';
import { StockState } from '../../../stock/index.ts';
import { readCsv } from '../../../platform/csv/csv-reader.ts';
import { isFinished, type ImportJobState, type JobFailure } from '../job.ts';
import { importKind } from '../kinds.ts';
import { parseRows, validateRows } from '../validate-file.ts';
import type { ImportRecords } from '../kind-definition.ts';
import { commitNextChunk } from './commit-chunk.ts';
import { DryRunSession } from './dry-run.ts';
import { failJob, finishJob } from './end-job.ts';
import { SYSTEM_ACTOR, type ProcessOutcome, type ProcessPorts } from './ports.ts';
import { documentEndsOf, pendingAfter, positionOfRow, rowsLeft, totalRowsOf } from './read-and-validate.ts';
import { referenceWindows } from './reference-windows.ts';
import { hierarchyOf, knownIn, loadReferences } from './references.ts';
import type { Pending, References, RunState } from './run-state.ts';

/**
 * Processing one import job (docs/imports.md "Guarantees"; the stages: docs/architecture.md "The
 * import pipeline"): read and validate the whole file first (its references a window of rows
 * ahead: reference-windows.ts), then handle the rows in file order,
 * in chunks. Each chunk is ONE transaction with its records, its events, its rows' verdicts (the
 * stored row errors) and the job's checkpoint and counts. The checkpoint's condition makes every
 * chunk commit exactly once, so a row is counted, applied or listed as an error exactly once
 * however often its message is delivered. The time left is checked before every phase and every
 * chunk; short of time, the worker hands the rest of the job to a fresh message instead of
 * racing the clock.
 */
export class ImportJobProcessor<Write = unknown> {
  constructor(private readonly ports: ProcessPorts<Write>) {}

  private now(): string {
    return (this.ports.clock?.() ?? new Date()).toISOString();
  }

  /**
   * Handles the job from its checkpoint on. `handoffs` is how many invocations in a row have
   * handed this job on without progress.
   */
  async process(organizationId: string, jobId: string, remainingMs: () => number, handoffs = 0): Promise<ProcessOutcome> {
    let job = await this.ports.jobs.get(organizationId, jobId);
    if (!job) return 'missing';
    if (isFinished(job.status)) return 'already-finished';
    const kind = (this.ports.kinds ?? importKind)(job.kind);
    if (!kind) return this.fail(job, { code: 'unknown-kind', message: `The import kind '${job.kind}' no longer exists.` });
    // A dry run reads through its overlay of would-be records, as of the job's checkpoint.
    const dryRun = job.dryRun ? await this.dryRunOf(job) : undefined;
    const ports: ProcessPorts<Write> = dryRun ? { ...this.ports, records: dryRun.records } : this.ports;
    const budget = new TimeBudget(remainingMs);
    const hasTime = () => budget.hasTime();
    const stalled = (current: ImportJobState) =>
      this.handOff(current, handoffsWithoutProgress({ previous: handoffs, progressed: false, fairRun: budget.fairRun }));

    // Read and validate the whole file, against the records the rows still to handle refer to,
    // read a window of rows at a time: a continuation reads only those of the rows it gets to
    // (docs/imports.md "Large files and continuations").
    const csv = await readCsv(await ports.files.open(job.fileKey), kind);
    if (!csv.ok) return this.fail(job, csv.failure);
    if (!hasTime()) return stalled(job);
    const parsed = parseRows(kind, csv);
    const positionOf = positionOfRow(kind, parsed.groupOfRow);
    const windows = referenceWindows(kind, rowsLeft(parsed.parsed, positionOf, job.checkpoint), positionOf, ports.referenceWindowRows);
    const references: References = new Map();
    const appliedThrough = job.checkpoint;
    /** The pending entries of the next window, its references read first; undefined when time ran out. */
    const nextWindow = async (after: number): Promise<Pending[] | undefined> => {
      const window = windows.shift();
      if (!window) return [];
      const loaded = await loadReferences(ports.records, organizationId, kind, window.rows, hasTime);
      if (!loaded || !hasTime()) return undefined;
      for (const [entity, found] of loaded) references.set(entity, new Map([...(references.get(entity) ?? []), ...found]));
      const validated = validateRows(kind, parsed, knownIn(references), appliedThrough);
      return pendingAfter(kind, validated, parsed.groupOfRow, after).filter(({ position }) => position <= window.through);
    };
    const pending = await nextWindow(job.checkpoint);
    if (!pending || !hasTime()) return stalled(job);

    if (job.status === 'queued') job = await ports.jobs.start(job, { totalRows: totalRowsOf(csv), warnings: csv.warnings }, this.now());
    const itemsOf = (found: References) => [...(found.get('item')?.values() ?? [])].map(({ record }) => record as Item);
    const run: RunState<Write> = {
      ports,
      now: () => this.now(),
      job,
      kind,
      pending,
      existing: new Map(),
      loadedKeys: new Set(),
      references,
      hierarchy: await hierarchyOf(ports.records, organizationId, kind, references),
      ...(kind.stock
        ? { stock: new StockState(ports.records, organizationId, itemsOf(references), { totalsWithRecords: kind.stock.changesItemTotals !== false }) }
        : {}),
      stockReadThrough: 0,
      documentEnds: documentEndsOf(kind, csv.rows),
      checkpoint: job.checkpoint,
      storedErrors: job.storedErrors ?? 0,
      hasTime,
      jobVerdicts: new Map(),
      jobProgressed: false,
      ...(dryRun ? { dryRun } : {}),
    };

    // Commit chunk after chunk, while there is time.
    const context = { organizationId, actor: SYSTEM_ACTOR, traceId: null };
    let progressed = false;
    for (let index = 0; index < run.pending.length || windows.length > 0;) {
      if (!hasTime()) return progressed || run.jobProgressed ? this.handOff(run.job, 0) : stalled(run.job);
      if (index >= run.pending.length) {
        // The window is done: the next one's references, and its entries after the checkpoint.
        const next = await nextWindow(run.checkpoint);
        if (!next) return progressed || run.jobProgressed ? this.handOff(run.job, 0) : stalled(run.job);
        run.pending = next;
        run.stockReadThrough = 0;
        run.stock?.remember(itemsOf(references));
        index = 0;
        continue;
      }
      const committed = await commitNextChunk(context, run, index);
      // Another delivery of this job moved the checkpoint: it carries on, this one stops.
      if (committed === undefined) return 'taken-over';
      // Out of time while reading ahead, before a single unit was ready.
      if (committed === 0) continue;
      index += committed;
      progressed = true;
    }
    return finishJob(ports, run.job, () => this.now());
  }

  private dryRunOf(job: ImportJobState): Promise<DryRunSession<Write & object>> {
    if (!this.ports.dryRunOverlays) throw new Error(`Job ${job.id} is a dry run, and this worker has nowhere to keep its overlay`);
    // Every port's writes are objects (see RunState.dryRun); the generic signature cannot say so.
    return DryRunSession.resume(this.ports.dryRunOverlays, job, this.ports.records as ImportRecords<Write & object>);
  }

  /** Ends the job as failed (e.g. its message's last allowed receive failed). */
  async fail(job: ImportJobState, failure: JobFailure): Promise<ProcessOutcome> {
    return failJob(this.ports, job, failure, this.now());
  }

  /** The rest of the job goes to a new message; a job that keeps making no progress fails instead. */
  private handOff(job: ImportJobState, handoffs: number): Promise<ProcessOutcome> {
    return handOff(
      {
        continueLater: (handoffsWithoutProgress) => this.ports.continueLater({ organizationId: job.organizationId, jobId: job.id, handoffsWithoutProgress }),
        giveUp: () =>
          this.fail(job, {
            code: 'processing-timeout',
            message: `The file could not be processed within ${MAX_HANDOFFS_WITHOUT_PROGRESS} worker invocations without progress. Split it into smaller files, or contact support with the job id.`,
          }),
      },
      handoffs,
    );
  }
}
