/**
 * The door of the boms area: what another area's domain, contracts and routes may import of
 * it, nothing more (docs/architecture.md "Areas and their doors").
 */
export { BOM_LIMITS, hasAllowedDecimals, lineNeed, lineUnitFits, lineUnitMessage } from './domain/bom.ts';
export type { BomComponentInput, BomContent, BomContentInput, BomRevisionRef } from './domain/bom.ts';
export { contentFromInput, revisionSummary, sameContent } from './domain/content.ts';
export type { Bom, BomListFilter, BomRevision, BomSummary, BuildHeader, BuildProvenance, ConsumedLine } from './domain/records.ts';
