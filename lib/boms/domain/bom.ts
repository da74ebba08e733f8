import { scaleQuantity } from '../../inventory/index.ts';
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
 * Limits enforced by the request schemas and the `boms` import (docs/boms.md "Model"). The number
 * of lines is the product's: what a bill of materials needs; a build of any of them runs as a job
 * of as many transactions as it needs (docs/boms.md "Builds"). A BOM and each of
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
