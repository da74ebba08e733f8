import { ApiError, NotFoundError } from '../../platform/core/errors.ts';
import { newId } from '../../platform/core/ids.ts';
import type { AuditActor } from '../../platform/audit/types.ts';
import type { BomRevisionRef } from '../../boms/index.ts';

/**
 * A build job (docs/boms.md "Builds"): one build of a BOM revision, bigger than a transaction, run
 * in steps by lib/builds/domain/runner.ts. It first holds every component it needs (the holds are
 * stored in draw slices, each committed with the job's checkpoint), then consumes the slices one
 * transaction at a time, produces the output, and records provenance. A build that cannot finish
 * unwinds: it puts back what it consumed and lets go of what it holds, then fails.
 */

export const BUILD_STATUSES = ['queued', 'running', 'succeeded', 'failed'] as const;
export type BuildStatus = (typeof BUILD_STATUSES)[number];

/** Where the job stands: the step it runs next. */
export const BUILD_PHASES = ['reserve', 'consume', 'produce', 'record', 'unwind', 'done'] as const;
export type BuildPhase = (typeof BUILD_PHASES)[number];

/** Source lines a build may name (each a component's place to draw from). */
export const MAX_BUILD_SOURCE_LINES = 1000;

/** A place a component is drawn from, as the request named it, resolved to ids. */
export interface BuildSource {
  itemId: string;
  locationId: string;
  lot: string | null;
}

/** Stock a build holds, then consumes: one stock record's share of one BOM line. */
export interface BuildDraw {
  /** The BOM line (its index in the revision's lines) the draw serves. */
  line: number;
  itemId: string;
  locationId: string;
  lot: string | null;
  stockRecordId: string;
  quantity: number;
}

export interface ShortBuildLine {
  /** Index of the BOM line in the revision's lines. */
  line: number;
  itemId: string;
  sku: string;
  needed: number;
  available: number;
}

export interface BuildFailure {
  code: string;
  message: string;
  lines: ShortBuildLine[];
}

export interface BuildProgress {
  phase: BuildPhase;
  /** Draw slices stored (each holds its stock). */
  slices: number;
  /** Slices consumed. */
  consumed: number;
  /** Unwinding: slices put back (of those consumed) and let go (of those held only). */
  unwound: number;
  /** Provenance groups written. */
  recorded: number;
  outputStockRecordId: string | null;
  /** When the output was produced: the provenance's `builtAt`. */
  producedAt: string | null;
  /** Set while unwinding: why the build fails once unwound. */
  failure: BuildFailure | null;
}

export interface Build {
  /** `bld_…`: also the id of its provenance once it succeeded. */
  id: string;
  organizationId: string;
  buildReference: string;
  bomId: string;
  revision: BomRevisionRef;
  quantity: number;
  locationId: string;
  outputLot: string | null;
  sources: BuildSource[];
  status: BuildStatus;
  failure: BuildFailure | null;
  progress: BuildProgress;
  /** Who submitted it: the audit entries of its steps name them. Not shown. */
  submittedBy: AuditActor;
  /** The import that submitted it, from a row of the `builds` kind; its claim names that job, which runs it to its end. Not shown. */
  importJobId?: string;
  submittedAt: string;
  updatedAt: string;
  completedAt: string | null;
}

/** What the API shows of a build (docs/boms.md "Builds"). */
export function publicBuild(build: Build) {
  const { submittedBy: _submittedBy, importJobId: _importJobId, organizationId: _organizationId, sources: _sources, progress, ...shown } = build;
  return { ...shown, phase: progress.phase };
}

export interface StoredBuild {
  build: Build;
  version: number;
}

/** A build as submitted, over JSON or by an import: queued, at the reserve step, with a new id. */
export function queuedBuild(
  fields: Pick<
    Build,
    'organizationId' | 'buildReference' | 'bomId' | 'revision' | 'quantity' | 'locationId' | 'outputLot' | 'sources' | 'submittedBy' | 'importJobId'
  >,
  at: string,
): Build {
  const { importJobId, ...rest } = fields;
  return {
    id: newId('bld'),
    ...rest,
    status: 'queued',
    failure: null,
    progress: newProgress(),
    ...(importJobId === undefined ? {} : { importJobId }),
    submittedAt: at,
    updatedAt: at,
    completedAt: null,
  };
}

export function newProgress(): BuildProgress {
  return { phase: 'reserve', slices: 0, consumed: 0, unwound: 0, recorded: 0, outputStockRecordId: null, producedAt: null, failure: null };
}

export class BuildReferenceTakenError extends ApiError {
  constructor(buildReference: string, buildId: string | null) {
    super(409, 'customer-api.builds.reference-taken', 'Build reference taken', {
      detail: `A build with buildReference '${buildReference}' was already submitted (over JSON or by an import); a build reference builds once.`,
      extensions: { buildReference, buildId },
    });
  }
}

/** The build was not at the version a step read: another runner committed that step. */
export class StepTakenError extends Error {
  override name = 'StepTakenError';
}

export function buildNotFound(): NotFoundError {
  return new NotFoundError('builds', 'The build does not exist.');
}
