import type { BomContent, BomContentInput, BomLine, RevisionSummary } from './bom.ts';
import { compareContents } from './compare.ts';

/**
 * A BOM's content from a PUT body (docs/boms.md "Revisions"). A PUT replaces the whole content,
 * so an absent optional field takes its default, on update as on create, rather than keeping the
 * previous value. lineIds follow the item: a component whose item already had a line in
 * `previous` keeps that line's id.
 */
export function contentFromInput(input: BomContentInput, previous: BomContent | undefined, newLineId: () => string): BomContent {
  const previousLineIds = new Map(previous?.lines.map((line) => [line.itemId, line.lineId]));
  const seenItemIds = new Set<string>();
  const lines = input.components.map((component): BomLine => {
    if (seenItemIds.has(component.itemId)) throw new Error(`Component item ${component.itemId} appears more than once.`);
    seenItemIds.add(component.itemId);
    return {
      lineId: previousLineIds.get(component.itemId) ?? newLineId(),
      itemId: component.itemId,
      quantity: component.quantity,
      unit: component.unit ?? null,
      scrapPercent: component.scrapPercent ?? 0,
      notes: component.notes ?? null,
    };
  });
  return {
    name: input.name,
    targetItemId: input.targetItemId,
    status: input.status ?? 'draft',
    outputQuantity: input.outputQuantity ?? 1,
    unit: input.unit ?? null,
    notes: input.notes ?? null,
    lines,
  };
}

/** Whether `b` would be no change from `a`: line order and lineIds do not count. */
export function sameContent(a: BomContent, b: BomContent): boolean {
  const { fields, summary } = compareContents(a, b);
  return fields.length === 0 && summary.added === 0 && summary.removed === 0 && summary.changed === 0;
}

export function revisionSummary(previous: BomContent | undefined, next: BomContent): RevisionSummary {
  // A first revision is measured against an empty BOM, so every line counts as added.
  const { added, removed, changed } = compareContents(previous ?? { ...next, lines: [] }, next).summary;
  return { added, removed, changed };
}
