// The stock area's stored kinds, declared once with their keys (docs/architecture.md "Storage: the entity layer"):
// no other module writes these key strings. Each is marked pure, so a function bundles only what its stores use.
import { defineEntity } from '../../platform/dynamo/entity.ts';

/** The claim of one applied stock row (or build), by its kind's natural key: `<kind>#<natural key>` as JSON, never split. */
export const stockEntryEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; key: string }>({
  type: 'stock-entry',
  schemaVersion: 1,
  key: ({ organizationId, key }) => ({ pk: `ORG#${organizationId}#ENTRY#${key}`, sk: 'ENTRY' }),
});

/** A receipt or count an import recorded, by its natural key (job, type, reference). */
export const stockDocumentEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; key: string }>({
  type: 'stock-document',
  schemaVersion: 1,
  key: ({ organizationId, key }) => ({ pk: `ORG#${organizationId}#DOC#${key}`, sk: 'DOC' }),
});

/** A stock change by its id (lib/stock/store/stock-changes-store.ts). */
export const stockChangeEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; id: string }>({
  type: 'stock-change',
  schemaVersion: 1,
  key: ({ organizationId, id }) => ({ pk: `ORG#${organizationId}#${id}`, sk: 'CHANGE' }),
});
