import { sumQuantities } from '../../inventory/index.ts';
import { BOM_HEADER_FIELDS, BOM_LINE_FIELDS, type BomContent, type BomLine } from './bom.ts';

/**
 * What differs between two revisions' contents (docs/boms.md "Compare"). Lines are matched by
 * itemId, not lineId: a reader compares components, so a line whose item changed is a removal
 * plus an addition, and an item removed and later re-added (which gets a new lineId) still
 * matches its earlier line.
 */

export interface FieldChange {
  field: string;
  from: unknown;
  to: unknown;
}

export interface ChangedLine {
  itemId: string;
  changes: FieldChange[];
  quantityDelta: number;
}

export interface ContentComparison {
  /** Header fields that differ, in BOM_HEADER_FIELDS order. */
  fields: FieldChange[];
  /** Added in `to` order, removed in `from` order, changed in `to` order. */
  components: { added: BomLine[]; removed: BomLine[]; changed: ChangedLine[] };
  summary: { added: number; removed: number; changed: number; unchanged: number };
}

export function compareContents(from: BomContent, to: BomContent): ContentComparison {
  const fromLines = linesByItemId(from);
  const toLines = linesByItemId(to);
  const changed: ChangedLine[] = [];
  let unchanged = 0;
  for (const line of to.lines) {
    const before = fromLines.get(line.itemId);
    if (!before) continue;
    const changes = differingFields(before, line, BOM_LINE_FIELDS);
    if (changes.length === 0) unchanged += 1;
    // Quantities carry up to 6 decimals; plain subtraction would report 0.3 − 0.1 as 0.19999999999999998.
    else changed.push({ itemId: line.itemId, changes, quantityDelta: sumQuantities([line.quantity, -before.quantity]) });
  }
  const added = to.lines.filter((line) => !fromLines.has(line.itemId)).map((line) => ({ ...line }));
  const removed = from.lines.filter((line) => !toLines.has(line.itemId)).map((line) => ({ ...line }));
  return {
    fields: differingFields(from, to, BOM_HEADER_FIELDS),
    components: { added, removed, changed },
    summary: { added: added.length, removed: removed.length, changed: changed.length, unchanged },
  };
}

/**
 * `from` with `comparison` applied: equals the comparison's `to` up to line order (kept lines
 * first, in `from` order, then the added ones). Lines present on both sides keep `from`'s lineId,
 * since the comparison does not carry lineIds of matched lines.
 */
export function applyComparison(from: BomContent, comparison: ContentComparison): BomContent {
  const { added, removed, changed } = comparison.components;
  const fromLines = linesByItemId(from);
  const removedItemIds = new Set(removed.map((line) => line.itemId));
  const lineChanges = new Map(changed.map((line) => [line.itemId, line.changes]));
  for (const itemId of [...removedItemIds, ...lineChanges.keys()]) {
    if (!fromLines.has(itemId)) throw new Error(`The comparison does not fit this content: it has no line for item ${itemId}.`);
  }
  const kept = from.lines
    .filter((line) => !removedItemIds.has(line.itemId))
    .map((line) => withChanges(line, lineChanges.get(line.itemId) ?? [], BOM_LINE_FIELDS));
  const keptItemIds = new Set(kept.map((line) => line.itemId));
  const clash = added.find((line) => keptItemIds.has(line.itemId));
  if (clash) throw new Error(`The comparison does not fit this content: item ${clash.itemId} is added but already has a line.`);
  return { ...withChanges(from, comparison.fields, BOM_HEADER_FIELDS), lines: [...kept, ...added.map((line) => ({ ...line }))] };
}

function linesByItemId(content: BomContent): Map<string, BomLine> {
  const lines = new Map<string, BomLine>();
  for (const line of content.lines) {
    if (lines.has(line.itemId)) throw new Error(`BOM content has more than one line for item ${line.itemId}.`);
    lines.set(line.itemId, line);
  }
  return lines;
}

function differingFields<T, K extends keyof T & string>(from: T, to: T, fields: readonly K[]): FieldChange[] {
  return fields.filter((field) => from[field] !== to[field]).map((field) => ({ field, from: from[field], to: to[field] }));
}

function withChanges<T extends object>(target: T, changes: readonly FieldChange[], fields: readonly (keyof T & string)[]): T {
  const result = { ...target };
  for (const change of changes) {
    if (!(fields as readonly string[]).includes(change.field))
      throw new Error(`The comparison does not fit this content: ${change.field} is not a compared field.`);
    // The value comes from compareContents reading this very field, so it has the field's type.
    (result as Record<string, unknown>)[change.field] = change.to;
  }
  return result;
}
