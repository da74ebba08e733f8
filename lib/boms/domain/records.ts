import type { PageOf } from '../../platform/pagination/page.ts';
import type { BomContent, BomRevisionRef, BomStatus, RevisionSummary } from './bom.ts';

/** The stored shapes of the BOM area (docs/boms.md "Model"): the BOM, its revisions, its builds. */

export interface Bom extends BomContent {
  id: string;
  code: string;
  archived: boolean;
  revision: BomRevisionRef;
  createdAt: string;
  updatedAt: string;
}

/** What a list shows of a BOM. */
export interface BomSummary {
  id: string;
  code: string;
  name: string;
  targetItemId: string;
  status: BomStatus;
  archived: boolean;
  revision: BomRevisionRef;
  lineCount: number;
  createdAt: string;
  updatedAt: string;
}

/** An immutable snapshot of a BOM's content. */
export interface BomRevision {
  id: string;
  bomId: string;
  number: number;
  createdAt: string;
  /** The API key that made the change. */
  createdBy: string;
  summary: RevisionSummary;
  content: BomContent;
}

export type BomRevisionListing = Omit<BomRevision, 'content' | 'bomId'>;

/** Which stock a build consumed and what it produced (written by builds; read per source stock record). */
export interface BuildProvenance {
  id: string;
  bomId: string;
  revision: BomRevisionRef;
  reference: string;
  quantity: number;
  outputItemId: string;
  outputStockRecordId: string;
  /**
   * The lot produced (null: the output is not tracked by lot). Absent on builds recorded before
   * lot tracing, which are not in the lot-trace index (docs/inventory.md "Tracing a lot").
   */
  outputLot?: string | null;
  locationId: string;
  consumed: ConsumedLine[];
  builtAt: string;
}

/** One stock record (lot) a build drew from, and how much. */
export interface ConsumedLine {
  sourceStockRecordId: string;
  itemId: string;
  quantity: number;
  lot: string | null;
}

/** A build's provenance without its consumed lines: what every stored piece of it repeats (docs/boms.md "Build provenance"). */
export type BuildHeader = Omit<BuildProvenance, 'consumed'>;

export function summaryOf(bom: Bom): BomSummary {
  return {
    id: bom.id,
    code: bom.code,
    name: bom.name,
    targetItemId: bom.targetItemId,
    status: bom.status,
    archived: bom.archived,
    revision: { id: bom.revision.id, number: bom.revision.number },
    lineCount: bom.lines.length,
    createdAt: bom.createdAt,
    updatedAt: bom.updatedAt,
  };
}

/** List filters; `q` is matched case-insensitively against code and name. */
export interface BomListFilter {
  q?: string;
  status?: BomStatus;
  targetItemId?: string;
  includeArchived: boolean;
}

export type { PageOf } from '../../platform/pagination/page.ts';

/** Storage of the BOM area, as the domain uses it. */
export interface BomStorage<Write = unknown> {
  get(organizationId: string, bomId: string): Promise<{ bom: Bom; version: number } | undefined>;
  /** The BOM, its list entry, its code claim and its first revision. */
  createWrites(organizationId: string, bom: Bom, revision: BomRevision): Write[];
  /** The BOM over `expectedVersion`, its list entry and, when the content changed, its new revision. */
  updateWrites(organizationId: string, bom: Bom, expectedVersion: number, revision: BomRevision | undefined): Write[];
  list(organizationId: string, filter: BomListFilter, after: string | undefined, limit: number): Promise<PageOf<BomSummary>>;
  revisions(organizationId: string, bomId: string, after: string | undefined, limit: number): Promise<PageOf<BomRevisionListing>>;
  revision(organizationId: string, bomId: string, revisionId: string): Promise<BomRevision | undefined>;
  builds(organizationId: string, bomId: string, sourceStockRecordId: string, after: string | undefined, limit: number): Promise<PageOf<BuildProvenance>>;
  buildWrites(organizationId: string, build: BuildProvenance): Write[];
}
