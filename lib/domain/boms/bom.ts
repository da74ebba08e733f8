import { scaleQuantity } from '../inventory/stock.ts';
/**
 * Bills of materials: the components that `outputQuantity` of a target item is built from (docs/boms.md "Model").
 * A BOM's content is snapshotted in numbered revisions; these types are that content, free of
 * storage and transport concerns.
 */

export const BOM_STATUSES = ['draft', 'active', 'obsolete'] as const;
export type BomStatus = (typeof BOM_STATUSES)[number];

/** One component line; lineId is stable across revisions for the same itemId. */
export interface BomLine {
  lineId: string;
  itemId: string;
  quantity: number;
  unit: string | null;
  scrapPercent: number;
  notes: string | null;
}

/** Everything a revision snapshots: what a PUT can change, except `archived`. */
export interface BomContent {
  name: string;
  targetItemId: string;
  status: BomStatus;
  outputQuantity: number;
  unit: string | null;
  notes: string | null;
  lines: BomLine[];
}

export interface BomRevisionRef {
  id: string;
  number: number;
}

export interface RevisionSummary {
  added: number;
  removed: number;
  changed: number;
}

/** The request's content after schema parsing (optional fields may be absent). */
export interface BomComponentInput {
  itemId: string;
  quantity: number;
  unit?: string | null;
  scrapPercent?: number;
  notes?: string | null;
}

export interface BomContentInput {
  name: string;
  targetItemId: string;
  status?: BomStatus;
  outputQuantity?: number;
  unit?: string | null;
  notes?: string | null;
  components: BomComponentInput[];
}

/**
 * What one build may apply (docs/inventory.md "builds", docs/boms.md "Model"). A build applies
 * whole or not at all, so it is ONE transaction of the import worker: DynamoDB's 100 actions less
 * the 2 the worker keeps for the job's checkpoint and the event counter, and 1 for the item that
 * holds the transaction's events (docs/events.md "How events are stored"). Counted in the worst
 * case, a build takes:
 * - per stock record it draws from: the movement (1: one item, its ledger entries included), the
 *   stock record (1: a record drawn from exists, and an update leaves its keys-only list entries
 *   as they are), the item's total (1) and the provenance entry of that source (1): 4;
 * - for its output: the movement, the item's total, and a stock record that may be new (the
 *   record and its two list entries, the by-item one claiming its natural key: 3): 5;
 * - once: the row claim, the provenance pointer and the check of the BOM it was decided on: 3.
 * Its events (`movement.created`, `stock.changed`, `low-stock`) share the transaction's event
 * item; a build's take a few hundred bytes each, far from the size at which it splits.
 * test/e2e/stock-rules.test.ts builds a BOM of this many lines, each drawn from its own record.
 */
const BUILD_TRANSACTION_ACTIONS = 100 - 2 - 1;
const BUILD_ACTIONS_PER_SOURCE = 4;
const BUILD_ACTIONS_FOR_OUTPUT = 5;
const BUILD_ACTIONS_ONCE = 3;

/** Stock records one build may draw from: 22. */
export const MAX_BUILD_SOURCES = Math.floor((BUILD_TRANSACTION_ACTIONS - BUILD_ACTIONS_ONCE - BUILD_ACTIONS_FOR_OUTPUT) / BUILD_ACTIONS_PER_SOURCE);

/**
 * Limits enforced by the request schemas and the `boms` import (docs/boms.md "Model"). The number
 * of lines is the product's: what a bill of materials needs, not what one build transaction can
 * draw (`MAX_BUILD_SOURCES`); a build of a larger BOM is the builds' to split. A BOM and each of
 * its revisions store the whole content in one item, which DynamoDB caps at 400 KB (409,600
 * bytes): 500 lines whose every text is at its longest, in characters of 3 UTF-8 bytes, take
 * about 401,300 (test/unit/boms/bom-worst-case-size.test.ts measures every item a write stores).
 */
export const BOM_LIMITS = { code: 64, name: 200, unit: 16, notes: 2000, lineNotes: 200, components: 500, quantityDecimals: 6 } as const;

/**
 * The largest JSON body `POST /v1/boms` and `PUT /v1/boms/{id}` take: 1 MiB, four times the
 * default. A body of 500 lines with every text at its longest, written as compact JSON in which
 * every character of the notes is a 6-byte escape (`\u0001`), is about 700 KB: any client's
 * encoding of any valid BOM fits, short of padding it with whitespace.
 */
export const BOM_JSON_BODY_MAX_BYTES = 1024 * 1024;

export const BOM_HEADER_FIELDS = ['name', 'targetItemId', 'status', 'outputQuantity', 'unit', 'notes'] as const;
export type BomHeaderField = (typeof BOM_HEADER_FIELDS)[number];

export const BOM_LINE_FIELDS = ['quantity', 'unit', 'scrapPercent', 'notes'] as const;
export type BomLineField = (typeof BOM_LINE_FIELDS)[number];

/**
 * A line's unit is empty or the component item's own unit: the model converts no units, so a
 * line in `g` of an item kept in `kg` would be read as kilograms (docs/boms.md "Model").
 */
export function lineUnitFits(lineUnit: string | null | undefined, itemUnit: string): boolean {
  return lineUnit === undefined || lineUnit === null || lineUnit === itemUnit;
}

export function lineUnitMessage(lineUnit: string, itemUnit: string): string {
  return `unit "${lineUnit}" is not the component item's unit "${itemUnit}"; leave it empty or use "${itemUnit}" (units are not converted).`;
}

/** Whether a quantity, as written in decimal (a JSON number or a CSV cell), has at most the allowed decimals. */
export function hasAllowedDecimals(written: string): boolean {
  if (/e/i.test(written)) return false;
  const [, fraction = ''] = written.split('.');
  return fraction.length <= BOM_LIMITS.quantityDecimals;
}

/** The quantity of a BOM line one build of `quantity` needs: line quantity × quantity ÷ outputQuantity × (1 + scrapPercent/100). */
export function lineNeed(line: Pick<BomLine, 'quantity' | 'scrapPercent'>, content: Pick<BomContent, 'outputQuantity'>, quantity: number): number {
  return scaleQuantity(line.quantity, (quantity / content.outputQuantity) * (1 + line.scrapPercent / 100));
}
