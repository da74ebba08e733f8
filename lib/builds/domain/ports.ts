import type { Bom, BomRevision, BuildProvenance } from '../../boms/index.ts';
import type { StockChangeReads, StockChangeWrite } from '../../stock/index.ts';
import type { StockReads } from '../../stock/index.ts';
import type { CommandWriter } from '../../platform/write/ports.ts';
import type { Build, BuildDraw, StoredBuild } from './build.ts';

/** What build jobs read and write through (lib/builds/store/build-ports.ts). */

export interface BuildStorage<Write> {
  get(organizationId: string, id: string): Promise<StoredBuild | undefined>;
  /** The build that claimed `buildReference` (over JSON or by an import), if any: its id, or null when an import applied it before builds were jobs. */
  idOfReference(organizationId: string, buildReference: string): Promise<string | null | undefined>;
  /** The build, queued, and the claim of its reference (shared with the `builds` import), put only where absent. */
  createWrites(organizationId: string, build: Build): Write[];
  /** Lets go of the build's reference claim (a failed build built nothing: its reference may be built again). */
  releaseClaimWrite(organizationId: string, build: Build): Write;
  /** The build over the version read: every step's transaction holds it, so a step applies once. */
  checkpointWrite(organizationId: string, build: Build, expectedVersion: number): Write;
  /** Draw slice `index`, put only where absent. */
  sliceWrite(organizationId: string, buildId: string, index: number, draws: BuildDraw[]): Write;
  /** Every stored draw slice, in order. */
  slices(organizationId: string, buildId: string): Promise<BuildDraw[][]>;
}

export interface BuildPorts<Write> {
  builds: BuildStorage<Write>;
  boms: {
    get(organizationId: string, bomId: string): Promise<{ bom: Bom; version: number } | undefined>;
    getByCodes(organizationId: string, codes: Iterable<string>): Promise<Map<string, { record: Bom; version: number }>>;
    revision(organizationId: string, bomId: string, revisionId: string): Promise<BomRevision | undefined>;
    /** The BOM still at `expectedVersion` (an import's build is submitted only on the BOM it was planned on). */
    unchangedCheck(organizationId: string, bomId: string, expectedVersion: number): Write;
  };
  /** Items, locations and claims in one batch, as the JSON stock changes read them (the submission, and a run's items and locations by id). */
  references: StockChangeReads['references'];
  stock: StockReads & { writesOf(organizationId: string, write: StockChangeWrite): Write[] };
  /** The provenance's writes in groups of at most `maxActions`, each committed in its own transaction, in order. */
  provenanceGroups(organizationId: string, provenance: BuildProvenance, maxActions: number): Write[][];
  writer: CommandWriter<Write>;
  clock?: () => Date;
}
