// The boms area's stored kinds, declared once with their keys (docs/architecture.md "Storage: the entity layer"):
// no other module writes these key strings. Other areas' adapters reach them through ./index.ts.
import { defineEntity } from '../../platform/dynamo/entity.ts';

/**
 * Each declaration is marked pure, so a function bundles only the entities its stores use
 * (docs/performance.md "Bundles"); the lot-trace keys are apart in `lotKeys` for the same reason.
 */

/** Sort-key prefixes: BOM list entries, revision listings by number, builds of a source. */
export const BOM_LIST_PREFIX = 'BOM';
export const REVISION_NUMBER_PREFIX = 'N';
export const BUILD_PREFIX = 'BLD';

/** The organization's BOM list, ordered by id (= creation). */
export const bomsOf = (organizationId: string) => `ORG#${organizationId}#BOMS`;
/** A BOM's revisions: a small listing entry by number, the full snapshot by id. */
export const bomRevisionsOf = (organizationId: string, bomId: string) => `ORG#${organizationId}#${bomId}#REV`;
/** The builds of a BOM that consumed one stock record (forward traceability), by build id. */
export const buildsOfSource = (organizationId: string, bomId: string, stockRecordId: string) => `ORG#${organizationId}#${bomId}#SRC#${stockRecordId}`;
/** A revision or a build by its id alone (what an attachment's target names), pointing at its BOM. */
const recordPointerKey = (organizationId: string, id: string) => ({ pk: `ORG#${organizationId}#${id}`, sk: 'POINTER' });

/** Sort-key prefixes of a lot's partition in the lot-trace index: the builds that consumed it, and that produced it. */
export const LOT_CONSUMED_BY = 'USED';
export const LOT_PRODUCED_BY = 'MADE';
export type LotBuildsPrefix = typeof LOT_CONSUMED_BY | typeof LOT_PRODUCED_BY;

/** The keys of the lot-trace index (lib/platform/storage/tables.ts `LOTS_INDEX`): only the functions that trace lots or record builds bundle them. */
export const lotKeys = {
  /** An item's lot in the lot-trace index; ids never contain '#' and the lot is free text, so it goes last. */
  lotBuildsOf: (organizationId: string, itemId: string, lot: string) => `ORG#${organizationId}#LOT#${itemId}#${lot}`,
  /** A build that consumed the lot, one entry per stock record of it drawn: by time, then build. */
  lotConsumedBySortKey: (builtAt: string, buildId: string, stockRecordId: string) => `${LOT_CONSUMED_BY}#${builtAt}#${buildId}#${stockRecordId}`,
  /** The build that produced the lot: by time, then build. */
  lotProducedBySortKey: (builtAt: string, buildId: string) => `${LOT_PRODUCED_BY}#${builtAt}#${buildId}`,
  /**
   * Just after every entry of a build in a lot's partition, below the next build's (`$` sorts
   * after `#`): where a read of the builds after it starts.
   */
  lotPositionAfterBuild: (prefix: LotBuildsPrefix, builtAt: string, buildId: string) => `${prefix}#${builtAt}#${buildId}$`,
};

/** A BOM (detail) by id; its list entry lives in the organization's BOM list. */
export const bomEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; bomId: string }>({
  type: 'bom',
  schemaVersion: 1,
  key: ({ organizationId, bomId }) => ({ pk: `ORG#${organizationId}#${bomId}`, sk: 'BOM' }),
});

/** A BOM's entry in its organization's list: the summary and the attributes lists filter on. */
export const bomListEntryEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; bomId: string }>({
  type: 'bom-list-entry',
  // 2: `searchCode` and `searchName` apart, so `q` never matches across them (1: one `searchText`).
  schemaVersion: 2,
  key: ({ organizationId, bomId }) => ({ pk: bomsOf(organizationId), sk: `${BOM_LIST_PREFIX}#${bomId}` }),
});

export const bomRevisionListingEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; bomId: string; number: number }>({
  type: 'bom-revision-listing',
  schemaVersion: 1,
  key: ({ organizationId, bomId, number }) => ({
    pk: bomRevisionsOf(organizationId, bomId),
    sk: `${REVISION_NUMBER_PREFIX}#${String(number).padStart(10, '0')}`,
  }),
});

export const bomRevisionEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; bomId: string; revisionId: string }>({
  type: 'bom-revision',
  schemaVersion: 1,
  key: ({ organizationId, bomId, revisionId }) => ({ pk: bomRevisionsOf(organizationId, bomId), sk: `ID#${revisionId}` }),
});

/** Where a build stands in the lot-trace index: the item and lot it consumed or produced, and when it was built. */
export interface BuildLot {
  itemId: string;
  /** No lot: the item is not tracked by lot, and the build is not in the index under it. */
  lot: string | null;
  builtAt: string;
}

/**
 * A build's provenance entry under one stock record it drew from; it also lists the build under
 * the lot it consumed in the lot-trace index (docs/inventory.md "Tracing a lot"). 2: the build's
 * header and this record's own consumed lines (lib/boms/store/build-provenance-items.ts). 1: the whole
 * provenance (`build`), still read.
 */
export const buildProvenanceEntity = /* @__PURE__ */ defineEntity<
  { organizationId: string; bomId: string; stockRecordId: string; buildId: string; consumed: BuildLot },
  { organizationId: string; bomId: string; stockRecordId: string; buildId: string }
>({
  type: 'build-provenance',
  schemaVersion: 2,
  key: ({ organizationId, bomId, stockRecordId, buildId }) => ({ pk: buildsOfSource(organizationId, bomId, stockRecordId), sk: `${BUILD_PREFIX}#${buildId}` }),
  indexKeys: ({ organizationId, stockRecordId, buildId, consumed }): Record<string, string> =>
    consumed.lot === null
      ? {}
      : {
          lotPk: lotKeys.lotBuildsOf(organizationId, consumed.itemId, consumed.lot),
          lotSk: lotKeys.lotConsumedBySortKey(consumed.builtAt, buildId, stockRecordId),
        },
});

/** A revision's, a build's or a stock document's id → what it belongs to: lets an attachment name either by id alone. */
export const recordPointerEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; id: string }>({
  type: 'record-pointer',
  schemaVersion: 1,
  key: ({ organizationId, id }) => recordPointerKey(organizationId, id),
});

/**
 * A build's pointer: the same stored entity as `recordPointerEntity`, which also lists the build
 * under the lot it produced in the lot-trace index (docs/inventory.md "Tracing a lot"). 2: the
 * build's header, and its consumed lines themselves or how many slices hold them
 * (lib/boms/store/build-provenance-items.ts). 1: the whole provenance (`build`), still read.
 */
export const buildPointerEntity = /* @__PURE__ */ defineEntity<
  { organizationId: string; id: string; produced: BuildLot },
  { organizationId: string; id: string }
>({
  type: 'record-pointer',
  schemaVersion: 2,
  key: ({ organizationId, id }) => recordPointerKey(organizationId, id),
  indexKeys: ({ organizationId, id, produced }): Record<string, string> =>
    produced.lot === null
      ? {}
      : { lotPk: lotKeys.lotBuildsOf(organizationId, produced.itemId, produced.lot), lotSk: lotKeys.lotProducedBySortKey(produced.builtAt, id) },
});

/**
 * One slice of the lines a large build consumed, in order, numbered from 0 in its pointer's
 * partition: their keys follow from the build id and how many there are. Not in any index.
 */
export const buildConsumedSliceEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; buildId: string; index: number }>({
  type: 'build-consumed-slice',
  schemaVersion: 1,
  key: ({ organizationId, buildId, index }) => ({ pk: recordPointerKey(organizationId, buildId).pk, sk: `CONSUMED#${String(index).padStart(5, '0')}` }),
});
