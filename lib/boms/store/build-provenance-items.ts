import type { NativeAttributeValue } from '@aws-sdk/lib-dynamodb';
import type { BuildHeader, BuildProvenance, ConsumedLine } from '../domain/records.ts';
import { entityItem, type Key } from '../../platform/dynamo/entity.ts';
import { buildConsumedSliceEntity, buildPointerEntity, buildProvenanceEntity } from './entities.ts';

/**
 * How a build's provenance is stored (docs/boms.md "How provenance is stored"): in bytes linear
 * in the lines it consumed, whatever their number, no item ever holding all of them:
 * - its pointer (under the build id; in the lot-trace index under the lot it produced): the
 *   header, and either the consumed lines themselves (a small build written in one transaction)
 *   or how many slices hold them;
 * - its slices (the other builds): `CONSUMED_SLICE_LINES` lines each, in order;
 * - one entry per stock record it drew from (listed under that record for
 *   `GET /v1/boms/{id}/builds`; in the index under the lot consumed): the header, that record's
 *   own lines, and where the others are.
 * Pure: no reads or writes here. Items of schema version 1 held the whole provenance as `build`
 * on the pointer and on every entry; `storedBuildOf` reads both layouts.
 */

type StoredItem = Record<string, NativeAttributeValue>;

/**
 * Lines per slice, and the most a pointer holds itself. A line stores at most ~400 bytes (two
 * ids, a quantity, a lot of 64 characters of up to 4 bytes each), so a slice or a pointer stays
 * under 20 KB, and a transaction of 100 slices under half DynamoDB's 4 MB.
 */
export const CONSUMED_SLICE_LINES = 50;

/** A build's items, each to be put once. */
export interface ProvenanceItems {
  /** Empty when the pointer holds the lines. */
  slices: StoredItem[];
  entries: StoredItem[];
  pointer: StoredItem;
}

/** Whether a build's lines can live in its pointer: they fit one slice, and the pointer commits with every entry that says so. */
export function fitsInPointer(build: BuildProvenance, actionsInOneTransaction: number): boolean {
  return build.consumed.length <= CONSUMED_SLICE_LINES && sourcesOf(build).size + 1 <= actionsInOneTransaction;
}

export function provenanceItems(organizationId: string, build: BuildProvenance, linesInPointer: boolean): ProvenanceItems {
  const header = headerOf(build);
  const slices = linesInPointer ? [] : slicesOf(build.consumed);
  const where = { consumedCount: build.consumed.length, sliceCount: slices.length };
  const pointer = entityItem(
    buildPointerEntity,
    { organizationId, id: build.id, produced: { itemId: build.outputItemId, lot: build.outputLot ?? null, builtAt: build.builtAt } },
    { bomId: build.bomId, header, ...where, ...(linesInPointer ? { consumed: build.consumed } : {}) },
  );
  const entries = [...sourcesOf(build)].map(([stockRecordId, lines]) => {
    const [first] = lines as [ConsumedLine];
    const identity = {
      organizationId,
      bomId: build.bomId,
      stockRecordId,
      buildId: build.id,
      consumed: { itemId: first.itemId, lot: first.lot, builtAt: build.builtAt },
    };
    return entityItem(buildProvenanceEntity, identity, { header, ...where, consumed: lines });
  });
  return {
    slices: slices.map((lines, index) => entityItem(buildConsumedSliceEntity, { organizationId, buildId: build.id, index }, { consumed: lines })),
    entries,
    pointer,
  };
}

/**
 * A build as one of its items (pointer or entry, either layout) holds it: the header, every
 * consumed line when the item has them all, and otherwise where they are.
 */
export interface StoredBuild {
  header: BuildHeader;
  /** Every line the build consumed, in order; undefined: read them (`consumedLinesKeys`). */
  consumed: ConsumedLine[] | undefined;
  consumedCount: number;
  /** 0: the pointer holds the lines; otherwise that many slices. */
  sliceCount: number;
}

export function storedBuildOf(item: StoredItem): StoredBuild {
  if (item.build !== undefined) {
    // Schema version 1: the whole provenance on every item.
    const build = item.build as BuildProvenance;
    return { header: headerOf(build), consumed: build.consumed, consumedCount: build.consumed.length, sliceCount: 0 };
  }
  const consumedCount = item.consumedCount as number;
  const held = item.consumed as ConsumedLine[] | undefined;
  // An entry holds its own record's lines: all of them when the build drew from that record alone.
  return {
    header: item.header as BuildHeader,
    consumed: held?.length === consumedCount ? held : undefined,
    consumedCount,
    sliceCount: item.sliceCount as number,
  };
}

/** The keys of the items that hold a build's consumed lines, in order: its slices, or its pointer. */
export function consumedLinesKeys(organizationId: string, build: StoredBuild): Key[] {
  if (build.sliceCount === 0) return [buildPointerEntity.key({ organizationId, id: build.header.id })];
  return Array.from({ length: build.sliceCount }, (_, index) => buildConsumedSliceEntity.key({ organizationId, buildId: build.header.id, index }));
}

/** The provenance a reader answers, its fields in their documented order. */
export function provenanceOf(header: BuildHeader, consumed: ConsumedLine[]): BuildProvenance {
  const { id, bomId, revision, reference, quantity, outputItemId, outputStockRecordId, outputLot, locationId, builtAt } = header;
  // A build recorded before lot tracing has no `outputLot` at all; it stays absent.
  return {
    id,
    bomId,
    revision,
    reference,
    quantity,
    outputItemId,
    outputStockRecordId,
    ...(outputLot === undefined ? {} : { outputLot }),
    locationId,
    consumed,
    builtAt,
  };
}

function headerOf(build: BuildProvenance): BuildHeader {
  const { id, bomId, revision, reference, quantity, outputItemId, outputStockRecordId, outputLot, locationId, builtAt } = build;
  return {
    id,
    bomId,
    revision,
    reference,
    quantity,
    outputItemId,
    outputStockRecordId,
    ...(outputLot === undefined ? {} : { outputLot }),
    locationId,
    builtAt,
  };
}

/** Each stock record drawn from, in the order first drawn, with its lines (a record may be drawn for two BOM lines). */
function sourcesOf(build: BuildProvenance): Map<string, ConsumedLine[]> {
  const sources = new Map<string, ConsumedLine[]>();
  for (const line of build.consumed) {
    const lines = sources.get(line.sourceStockRecordId);
    if (lines) lines.push(line);
    else sources.set(line.sourceStockRecordId, [line]);
  }
  return sources;
}

function slicesOf(lines: readonly ConsumedLine[]): ConsumedLine[][] {
  const slices: ConsumedLine[][] = [];
  for (let start = 0; start < lines.length; start += CONSUMED_SLICE_LINES) slices.push(lines.slice(start, start + CONSUMED_SLICE_LINES));
  return slices;
}
