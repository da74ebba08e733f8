import type { EventDraft } from '../../../platform/events/types.ts';
import type { Hierarchy } from '../../../inventory/index.ts';
import type { VersionedRecord } from '../../../inventory/index.ts';
import type { StockState } from '../../../stock/index.ts';
import type { ImportJobState } from '../job.ts';
import type { AnyImportKind, ImportUnit, RecordWrite, ReferenceEntity, UnitDecision } from '../kind-definition.ts';
import type { RowAction, RowError } from '../types.ts';
import type { DryRunSession } from './dry-run.ts';
import type { ProcessPorts } from './ports.ts';

/** What one run of a job (one delivery of its message) reads and keeps while it handles the pending rows. */

/** Referenced records per entity, by natural key. */
export type References = Map<ReferenceEntity, Map<string, VersionedRecord<unknown>>>;

/** A row, or group of rows, after the checkpoint: valid rows to decide, or a validation verdict. */
export interface Pending {
  position: number;
  unit?: ImportUnit<unknown>;
  errors?: RowError[];
}

/** A unit ready to commit: its position (first row), how many rows it counts for, and its writes. */
export interface Unit<Write> {
  rowNumber: number;
  rowCount: number;
  writes: Write[];
  events: EventDraft[];
  action: RowAction | 'failed';
  storedErrors: number;
  unstoredErrors: number;
}

export interface RunState<Write> {
  ports: ProcessPorts<Write>;
  /** The time of the change, as an ISO 8601 string. */
  now: () => string;
  job: ImportJobState;
  kind: AnyImportKind;
  pending: Pending[];
  /** Records of the job's kind by natural key, read lazily ahead of the chunk being built. */
  existing: Map<string, VersionedRecord<unknown>>;
  loadedKeys: Set<string>;
  /** Referenced records per entity, read once before validation. */
  references: References;
  /** For kinds that move stock: the stock read so far, and how far ahead of the chunk it was read. */
  stock?: StockState;
  stockReadThrough: number;
  /** For kinds with receipts or counts: the reference of the document whose last row in the file is at a position. */
  documentEnds: Map<number, string>;
  hierarchy: Hierarchy | undefined;
  checkpoint: number;
  storedErrors: number;
  hasTime: () => boolean;
  /** Verdicts of units whose build ran to its end (lib/imports/domain/pipeline/job-units.ts), by position. */
  jobVerdicts: Map<number, UnitDecision>;
  /** Whether a build advanced in this run, though no chunk committed yet. */
  jobProgressed: boolean;
  /** For a dry run: its overlay, which record writes go to instead of the transaction. */
  // Write is an object in every port (store actions, the harness's writes): the overlay tags them by identity.
  dryRun?: DryRunSession<Write & object>;
}

/** The storage actions of record writes. */
export function storeWrites<Write>(run: Pick<RunState<Write>, 'ports' | 'job'>, writes: RecordWrite[]): Write[] {
  return writes.flatMap((write) => run.ports.records.writesOf(run.job.organizationId, write));
}
