import type { BomLine } from './bom.ts';
import type { RevisionComparison } from './reads.ts';
import type { Bom, BomRevision, BomRevisionListing, BomSummary, BuildProvenance } from './records.ts';

/** The API views of the BOM area, always in the documented field order (storage does not keep key order). */

const line = (l: BomLine) => ({ lineId: l.lineId, itemId: l.itemId, quantity: l.quantity, unit: l.unit, scrapPercent: l.scrapPercent, notes: l.notes });
const ref = (r: { id: string; number: number }) => ({ id: r.id, number: r.number });
const counts = (c: { added: number; removed: number; changed: number }) => ({ added: c.added, removed: c.removed, changed: c.changed });

export function publicBom(bom: Bom) {
  return {
    id: bom.id,
    code: bom.code,
    name: bom.name,
    targetItemId: bom.targetItemId,
    status: bom.status,
    outputQuantity: bom.outputQuantity,
    unit: bom.unit,
    notes: bom.notes,
    lines: bom.lines.map(line),
    archived: bom.archived,
    revision: ref(bom.revision),
    createdAt: bom.createdAt,
    updatedAt: bom.updatedAt,
  };
}

export function publicBomSummary(summary: BomSummary) {
  const { id, code, name, targetItemId, status, archived, revision, lineCount, createdAt, updatedAt } = summary;
  return { id, code, name, targetItemId, status, archived, revision: ref(revision), lineCount, createdAt, updatedAt };
}

export function publicRevisionListing(revision: BomRevisionListing) {
  return { id: revision.id, number: revision.number, createdAt: revision.createdAt, createdBy: revision.createdBy, summary: counts(revision.summary) };
}

export function publicRevision(revision: BomRevision) {
  const { content } = revision;
  return {
    ...publicRevisionListing(revision),
    bomId: revision.bomId,
    name: content.name,
    targetItemId: content.targetItemId,
    status: content.status,
    outputQuantity: content.outputQuantity,
    unit: content.unit,
    notes: content.notes,
    lines: content.lines.map(line),
  };
}

export function publicComparison(comparison: RevisionComparison) {
  const { components, summary } = comparison;
  return {
    bomId: comparison.bomId,
    from: ref(comparison.from),
    to: ref(comparison.to),
    fields: comparison.fields.map(({ field, from, to }) => ({ field, from, to })),
    components: {
      added: components.added.map(line),
      removed: components.removed.map(line),
      changed: components.changed.map(({ itemId, changes, quantityDelta }) => ({
        itemId,
        changes: changes.map(({ field, from, to }) => ({ field, from, to })),
        quantityDelta,
      })),
    },
    summary: { added: summary.added, removed: summary.removed, changed: summary.changed, unchanged: summary.unchanged },
  };
}

export function publicBuild(build: BuildProvenance) {
  return {
    id: build.id,
    bomId: build.bomId,
    revision: ref(build.revision),
    reference: build.reference,
    quantity: build.quantity,
    outputItemId: build.outputItemId,
    outputStockRecordId: build.outputStockRecordId,
    locationId: build.locationId,
    consumed: build.consumed.map(({ sourceStockRecordId, itemId, quantity, lot }) => ({ sourceStockRecordId, itemId, quantity, lot })),
    builtAt: build.builtAt,
  };
}
