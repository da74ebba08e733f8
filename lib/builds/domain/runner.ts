// One piece: a build's phases (reserve, consume, produce, record, unwind) share one checkpoint and one slice plan; split, each would restate them.
import { LRUCache } from 'lru-cache';
import type { AuditDraft } from '../../platform/audit/types.ts';
import type { BomContent } from '../../boms/index.ts';
import type { BuildProvenance } from '../../boms/index.ts';
import { ApiError } from '../../platform/core/errors.ts';
import type { EventDraft } from '../../platform/events/types.ts';
import type { Item } from '../../inventory/index.ts';
import type { Location } from '../../inventory/index.ts';
import { ARCHIVED_CODES, NaturalKeyTakenError, archivedMessage, newRecordId } from '../../inventory/index.ts';
import { newMovementId, stockRecordKey } from '../../inventory/index.ts';
import type { StockChangeWrite } from '../../stock/index.ts';
import { StockLedger, type StockSide } from '../../stock/index.ts';
import { StockState } from '../../stock/index.ts';
import { StepTakenError, type Build, type BuildDraw, type BuildFailure, type BuildProgress, type ShortBuildLine, type StoredBuild } from './build.ts';
import { holdNeeds, needsOf, readsOf, type BuildNeed } from './draws.ts';
import type { BuildPorts } from './ports.ts';

/**
 * Runs a build job step by step (docs/boms.md "Builds"). Each step is one transaction that holds
 * the build written over the version read (its checkpoint): a step committed by another runner
 * (a redelivered message) fails that condition, and this runner reads the build again and goes
 * on from where it stands, so every step applies once, whatever crashes or redeliveries happen.
 *
 * Steps: reserve (a slice of draws held, stored with the slice) until every line holds all it
 * needs; consume (a slice's draws leave on-hand and reserved together) slice by slice; produce
 * the output; record provenance, group by group. A build whose draws fit one slice is held and
 * consumed in one transaction, and one whose provenance is one small group records it with its
 * output: a small build takes 3 transactions with its submission. A build short of stock at the start fails at
 * once with nothing held; one that cannot go on later (stock taken by a race while reserving, a
 * count below what it holds, an output over the limit) unwinds: slices consumed are put back,
 * slices held are let go, then it fails. A failed build lets go of its reference's claim with
 * its last step: it built nothing, so the reference may be built again.
 */

/**
 * Draws per slice: a consumption writes 3 actions per draw (record, movement, item total), and
 * putting a slice back one more when it stocks a lot at 0 again (its entry among the place's
 * stocked lots, lib/inventory/store/stocked-lots.ts), so 24 leave room for the checkpoint, the counter, the
 * events and the audit entry in 100.
 */
export const DRAWS_PER_SLICE = 24;
/** Actions a provenance group may take: the rest of the 100 holds the checkpoint, the counter and the audit entry. */
export const PROVENANCE_ACTIONS_PER_GROUP = 90;
/** Provenance actions the output's transaction may also take (its movement, record, the output lot's stocked entry, total and the checkpoint take at most 7, the writer 3). */
const PROVENANCE_ACTIONS_WITH_OUTPUT = 80;
/** A step that keeps losing races on stock records is left to the next delivery after this many tries. */
const MAX_STEP_CONFLICTS = 8;
/** A step is not started with less time than this left in the invocation. */
export const STEP_TIME_MARGIN_MS = 5_000;

export type RunOutcome = 'done' | 'handed-on' | 'missing';

/** How a run ended, with the build as it then stands (undefined when missing). */
export interface RunResult {
  outcome: RunOutcome;
  build: Build | undefined;
}

/** Revisions a runner keeps: a revision never changes, and builds of one BOM come in runs (an import's rows). */
const KEPT_REVISIONS = 50;

/** A runner's fault hook (integration tests): called after each step commits, with the phase it committed. */
export type StepHook = (phase: BuildProgress['phase'], progress: BuildProgress) => void | Promise<void>;

interface Session {
  content: BomContent;
  items: Map<string, Item>;
  locations: Map<string, Location>;
  needs: BuildNeed[];
  state: StockState;
  slices: BuildDraw[][] | undefined;
}

export class BuildRunner<Write> {
  constructor(
    private readonly ports: BuildPorts<Write>,
    private readonly afterStep?: StepHook,
  ) {}

  /** Revisions read, by organization, BOM and revision id. */
  private readonly revisions = new LRUCache<string, BomContent>({ max: KEPT_REVISIONS });

  /**
   * Runs the build until it is done or the time left is too short for another step. `known`: the
   * build as its caller just wrote it (a submission), so it is not read first; if another runner
   * moved it meanwhile, the first step's checkpoint says so and the build is read then.
   */
  async run(organizationId: string, buildId: string, remainingMs: () => number, known?: StoredBuild): Promise<RunResult> {
    let stored = known ?? (await this.ports.builds.get(organizationId, buildId));
    if (!stored) return { outcome: 'missing', build: undefined };
    let session: Session | undefined;
    let conflicts = 0;
    while (stored.build.progress.phase !== 'done') {
      if (remainingMs() < STEP_TIME_MARGIN_MS) return { outcome: 'handed-on', build: stored.build };
      session ??= await this.open(organizationId, stored.build);
      try {
        stored = await this.step(organizationId, stored, session);
        conflicts = 0;
        await this.afterStep?.(stored.build.progress.phase, stored.build.progress);
      } catch (error) {
        if (!(error instanceof StepTakenError) && !isStockConflict(error)) throw error;
        // Another runner committed this step (its stock writes may be what failed first), or
        // another writer changed stock the step read: read both again and go on from there.
        const latest = await this.ports.builds.get(organizationId, buildId);
        if (!latest) return { outcome: 'missing', build: undefined };
        session.slices = undefined;
        session.state.forget();
        if (latest.version !== stored.version) conflicts = 0;
        else if (++conflicts > MAX_STEP_CONFLICTS) throw error;
        stored = latest;
      }
    }
    return { outcome: 'done', build: stored.build };
  }

  private async open(organizationId: string, build: Build): Promise<Session> {
    const { ports } = this;
    const content = await this.revision(organizationId, build);
    const itemIds = [...new Set([content.targetItemId, ...content.lines.map((line) => line.itemId), ...build.sources.map((source) => source.itemId)])];
    const locationIds = [...new Set([build.locationId, ...build.sources.map((source) => source.locationId)])];
    // Items and locations in one batch.
    const { itemsById: items, locationsById: locations } = await ports.references(organizationId, { skus: [], itemIds, codes: [], locationIds, claimKeys: [] });
    const state = new StockState(ports.stock, organizationId, items.values());
    return { content, items, locations, needs: needsOf(build, content, items, locations), state, slices: undefined };
  }

  private async revision(organizationId: string, build: Build): Promise<BomContent> {
    const key = `${organizationId}#${build.bomId}#${build.revision.id}`;
    const kept = this.revisions.get(key);
    if (kept) return kept;
    const revision = await this.ports.boms.revision(organizationId, build.bomId, build.revision.id);
    if (!revision) throw new Error(`Build ${build.id} names a revision that does not exist`);
    this.revisions.set(key, revision.content);
    return revision.content;
  }

  private async step(organizationId: string, stored: StoredBuild, session: Session): Promise<StoredBuild> {
    session.slices ??= await this.ports.builds.slices(organizationId, stored.build.id);
    switch (stored.build.progress.phase) {
      case 'reserve':
        return this.reserve(organizationId, stored, session);
      case 'consume':
        return this.consume(organizationId, stored, session);
      case 'produce':
        return this.produce(organizationId, stored, session);
      case 'record':
        return this.record(organizationId, stored, session);
      case 'unwind':
        return this.unwind(organizationId, stored, session);
      case 'done':
        return stored;
    }
  }

  /** Holds the next slice of what the lines still lack; or, when some line cannot get it, fails (nothing held yet) or unwinds. */
  private async reserve(organizationId: string, stored: StoredBuild, session: Session): Promise<StoredBuild> {
    const { build } = stored;
    const slices = session.slices ?? [];
    await session.state.read(readsOf(session.needs));
    const at = this.now();
    const held = new Map<number, number>();
    for (const draw of slices.flat()) held.set(draw.line, (held.get(draw.line) ?? 0) + draw.quantity);
    // Every line is decided first, on a ledger never written: a short line anywhere fails the build before the slice is held.
    const planned = holdNeeds(session.needs, held, this.ledger(session), build, at);
    if (planned.short.length > 0) {
      const failure = shortFailure(planned.short);
      if (slices.length === 0)
        return this.commit(organizationId, stored, session, undefined, finished(build, 'failed', failure, at), [
          this.ports.builds.releaseClaimWrite(organizationId, build),
        ]);
      return this.commit(organizationId, stored, session, undefined, { ...build, progress: { ...build.progress, phase: 'unwind', failure } }, []);
    }
    const slice = planned.draws.slice(0, DRAWS_PER_SLICE);
    const last = planned.draws.length <= DRAWS_PER_SLICE;
    // Every draw fits this one slice: held and consumed in one transaction, all or nothing by itself.
    const whole = last && slices.length === 0 && slice.length > 0;
    const slicesAfter = build.progress.slices + (slice.length > 0 ? 1 : 0);
    const progress: BuildProgress = whole
      ? { ...build.progress, slices: slicesAfter, consumed: slicesAfter, phase: 'produce' }
      : { ...build.progress, slices: slicesAfter, phase: last ? 'consume' : 'reserve' };
    const next: Build = { ...build, status: 'running', progress };
    if (slice.length === 0) return this.commit(organizationId, stored, session, undefined, next, []);
    const ledger = this.ledger(session);
    ledger.begin();
    for (const draw of slice) {
      const hold = ledger.hold({
        item: this.item(session, draw.itemId),
        side: this.side(session, draw),
        quantity: draw.quantity,
        reservationId: build.id,
        occurredAt: at,
      });
      if (!hold.ok) throw new Error('A slice holds what its plan found available');
    }
    if (whole) this.consumeDraws(ledger, session, build, slice, at);
    const extra = [this.ports.builds.sliceWrite(organizationId, build.id, build.progress.slices, slice)];
    const result = await this.commit(organizationId, stored, session, ledger, next, extra);
    session.slices = [...slices, slice];
    return result;
  }

  /** The draws leave on-hand and reserved together, as `consumption` movements, right after this transaction held them. */
  private consumeDraws(ledger: StockLedger, session: Session, build: Build, draws: readonly BuildDraw[], at: string): void {
    for (const draw of draws) {
      const moved = ledger.move({
        type: 'consumption',
        item: this.item(session, draw.itemId),
        quantity: draw.quantity,
        from: this.side(session, draw),
        reference: build.buildReference,
        reservationId: build.id,
        occurredAt: at,
      });
      if (!moved.ok) throw new Error('A draw held in this transaction is there to consume');
    }
  }

  /** Consumes the next slice: its draws leave on-hand and reserved together, as `consumption` movements. */
  private async consume(organizationId: string, stored: StoredBuild, session: Session): Promise<StoredBuild> {
    const { build } = stored;
    const slice = (session.slices ?? [])[build.progress.consumed] ?? [];
    await session.state.read({
      stockRecords: slice.map((draw) => stockRecordKey(draw.itemId, draw.locationId, draw.lot)),
      itemIds: slice.map((draw) => draw.itemId),
    });
    const at = this.now();
    const ledger = this.ledger(session);
    ledger.begin();
    const short: ShortBuildLine[] = [];
    for (const draw of slice) {
      const item = this.item(session, draw.itemId);
      const moved = ledger.move({
        type: 'consumption',
        item,
        quantity: draw.quantity,
        from: this.side(session, draw),
        reference: build.buildReference,
        reservationId: build.id,
        occurredAt: at,
      });
      if (!moved.ok && moved.reason === 'insufficient-stock')
        short.push({ line: draw.line, itemId: item.id, sku: item.sku, needed: draw.quantity, available: moved.available });
    }
    if (short.length > 0) {
      // A count set on-hand below what the build holds: it cannot consume what is not there.
      const failure: BuildFailure = {
        code: 'insufficient-stock',
        message: `A count lowered on-hand below what the build held at ${short.length} of its sources; what it had consumed was put back.`,
        lines: short,
      };
      return this.commit(organizationId, stored, session, undefined, { ...build, progress: { ...build.progress, phase: 'unwind', failure } }, []);
    }
    const consumed = build.progress.consumed + 1;
    return this.commit(
      organizationId,
      stored,
      session,
      ledger,
      { ...build, progress: { ...build.progress, consumed, phase: consumed >= build.progress.slices ? 'produce' : 'consume' } },
      [],
    );
  }

  private async produce(organizationId: string, stored: StoredBuild, session: Session): Promise<StoredBuild> {
    const { build } = stored;
    const target = this.item(session, session.content.targetItemId);
    const location = this.location(session, build.locationId);
    await session.state.read({ stockRecords: [stockRecordKey(target.id, location.id, build.outputLot)], itemIds: [target.id] });
    const ledger = this.ledger(session);
    ledger.begin();
    const produced = ledger.move({
      type: 'production',
      item: target,
      quantity: build.quantity,
      to: { location, lot: build.outputLot },
      reference: build.buildReference,
      occurredAt: this.now(),
    });
    if (!produced.ok || !produced.to) {
      const failure: BuildFailure =
        !produced.ok && produced.reason === 'archived'
          ? {
              code: ARCHIVED_CODES[produced.what],
              message: `${archivedMessage(produced.what, produced.name)} What the build consumed was put back.`,
              lines: [],
            }
          : {
              code: 'invalid-number',
              message: `The output would take ${target.sku} at its location over the most a stock record or an item may hold; what the build consumed was put back.`,
              lines: [],
            };
      return this.commit(organizationId, stored, session, undefined, { ...build, progress: { ...build.progress, phase: 'unwind', failure } }, []);
    }
    const progress: BuildProgress = { ...build.progress, phase: 'record', outputStockRecordId: produced.to.id, producedAt: this.now() };
    // A provenance of one small group is recorded in this transaction, which then ends the build.
    const groups = this.ports.provenanceGroups(organizationId, provenanceOf({ ...build, progress }, session), PROVENANCE_ACTIONS_PER_GROUP);
    const [only] = groups;
    if (groups.length === 1 && only && only.length <= PROVENANCE_ACTIONS_WITH_OUTPUT) {
      return this.commit(
        organizationId,
        stored,
        session,
        ledger,
        finished({ ...build, progress: { ...progress, recorded: 1 } }, 'succeeded', null, this.now()),
        only,
      );
    }
    return this.commit(organizationId, stored, session, ledger, { ...build, progress }, []);
  }

  /** Writes the next group of the provenance; the last one ends the build. */
  private async record(organizationId: string, stored: StoredBuild, session: Session): Promise<StoredBuild> {
    const { build } = stored;
    const groups = this.ports.provenanceGroups(organizationId, provenanceOf(build, session), PROVENANCE_ACTIONS_PER_GROUP);
    const recorded = build.progress.recorded + 1;
    const at = this.now();
    const next: Build =
      recorded >= groups.length
        ? finished({ ...build, progress: { ...build.progress, recorded } }, 'succeeded', null, at)
        : { ...build, progress: { ...build.progress, recorded } };
    return this.commit(organizationId, stored, session, undefined, next, groups[build.progress.recorded] ?? []);
  }

  /** Puts back the next slice consumed, or lets go of the next slice held; then fails the build. */
  private async unwind(organizationId: string, stored: StoredBuild, session: Session): Promise<StoredBuild> {
    const { build } = stored;
    const slices = session.slices ?? [];
    const index = build.progress.unwound;
    const at = this.now();
    if (index >= slices.length)
      return this.commit(organizationId, stored, session, undefined, finished(build, 'failed', build.progress.failure, at), [
        this.ports.builds.releaseClaimWrite(organizationId, build),
      ]);
    const slice = slices[index] ?? [];
    await session.state.read({
      stockRecords: slice.map((draw) => stockRecordKey(draw.itemId, draw.locationId, draw.lot)),
      itemIds: slice.map((draw) => draw.itemId),
    });
    const ledger = this.ledger(session);
    ledger.begin();
    for (const draw of slice) {
      const item = this.item(session, draw.itemId);
      const side = this.side(session, draw);
      if (index < build.progress.consumed) {
        const back = ledger.move({ type: 'consumption-reversal', item, quantity: draw.quantity, to: side, reference: build.buildReference, occurredAt: at });
        if (!back.ok) throw new Error(`Putting back what build ${build.id} consumed would pass the stock limit`);
      } else if (ledger.recordAt(item, side).reserved ?? 0) {
        ledger.hold({ item, side, quantity: -draw.quantity, reservationId: build.id, occurredAt: at });
      }
    }
    return this.commit(organizationId, stored, session, ledger, { ...build, progress: { ...build.progress, unwound: index + 1 } }, []);
  }

  /** One step's transaction: the ledger's writes and events, `extra` writes, and the build over the version read. */
  private async commit(
    organizationId: string,
    stored: StoredBuild,
    session: Session,
    ledger: StockLedger | undefined,
    next: Build,
    extra: Write[],
  ): Promise<StoredBuild> {
    const { ports } = this;
    const unit = ledger?.endUnit() ?? { writes: [], events: [] as EventDraft[] };
    const stockWrites: StockChangeWrite[] = ledger ? [...unit.writes, ...ledger.flush()] : [];
    const updated: Build = { ...next, updatedAt: this.now() };
    const checkpoint = ports.builds.checkpointWrite(organizationId, updated, stored.version);
    const writes = [...stockWrites.flatMap((write) => ports.stock.writesOf(organizationId, write)), ...extra, checkpoint];
    await ports.writer.run({ organizationId, actor: stored.build.submittedBy, traceId: null }, async () => ({
      writes,
      events: unit.events,
      audit: auditOf(stored.build, updated),
      result: undefined,
    }));
    if (ledger) session.state.advance(ledger);
    return { build: updated, version: stored.version + 1 };
  }

  private ledger(session: Session): StockLedger {
    return new StockLedger(session.state, { stockRecord: () => newRecordId('stock-record'), movement: newMovementId });
  }

  private now(): string {
    return (this.ports.clock?.() ?? new Date()).toISOString();
  }

  private item(session: Session, id: string): Item {
    const item = session.items.get(id);
    if (!item) throw new Error(`Item ${id} of a build does not exist`);
    return item;
  }

  private location(session: Session, id: string): Location {
    const location = session.locations.get(id);
    if (!location) throw new Error(`Location ${id} of a build does not exist`);
    return location;
  }

  private side(session: Session, draw: BuildDraw): StockSide {
    return { location: this.location(session, draw.locationId), lot: draw.lot };
  }
}

/** The build as it ends. */
function finished(build: Build, status: 'succeeded' | 'failed', failure: BuildFailure | null, at: string): Build {
  return { ...build, status, failure, completedAt: at, progress: { ...build.progress, phase: 'done', failure: null } };
}

function shortFailure(lines: ShortBuildLine[]): BuildFailure {
  return {
    code: 'insufficient-stock',
    message: `${lines.length === 1 ? 'A component line lacks' : `${lines.length} component lines lack`} available stock (on-hand less what reservations and other builds hold); nothing was consumed.`,
    lines,
  };
}

/** The audit entry of the step that ends the build. */
function auditOf(before: Build, after: Build): AuditDraft | undefined {
  if (after.progress.phase !== 'done' || before.progress.phase === 'done') return undefined;
  const succeeded = after.status === 'succeeded';
  return {
    kind: succeeded ? 'build.succeeded' : 'build.failed',
    target: { kind: 'build', id: after.id },
    summary: `Build ${succeeded ? 'succeeded' : 'failed'}: ${after.buildReference}`,
    changes: [],
  };
}

/** The provenance of a build whose output is produced: every draw consumed, in slice order. */
export function provenanceOf(build: Build, session: Pick<Session, 'slices' | 'content'>): BuildProvenance {
  const { outputStockRecordId, producedAt } = build.progress;
  if (!outputStockRecordId || !producedAt) throw new Error(`Build ${build.id} has no output yet`);
  return {
    id: build.id,
    bomId: build.bomId,
    revision: build.revision,
    reference: build.buildReference,
    quantity: build.quantity,
    outputItemId: session.content.targetItemId,
    outputStockRecordId,
    outputLot: build.outputLot,
    locationId: build.locationId,
    consumed: (session.slices ?? [])
      .flat()
      .map((draw) => ({ sourceStockRecordId: draw.stockRecordId, itemId: draw.itemId, quantity: draw.quantity, lot: draw.lot })),
    builtAt: producedAt,
  };
}

/** Another writer changed a stock record or total the step read: read again and decide the step again. */
/** Another writer changed a stock record the step read, or created one the step would create (a second runner producing the same output). */
function isStockConflict(error: unknown): boolean {
  if (error instanceof NaturalKeyTakenError) return error.recordType === 'stock-record';
  return error instanceof ApiError && error.status === 409 && error.code === 'customer-api.request.conflict';
}
