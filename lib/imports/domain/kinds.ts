import { bomsKind } from './boms-kind.ts';
import { buildsKind } from './builds-kind.ts';
import { itemsKind } from './items-kind.ts';
import type { AnyImportKind } from './kind-definition.ts';
import { locationsKind } from './locations-kind.ts';
import { poReceiptsKind } from './po-receipts-kind.ts';
import { stockAdjustmentsKind } from './stock-adjustments-kind.ts';
import { stockCountsKind } from './stock-counts-kind.ts';
import { stockTransfersKind } from './stock-transfers-kind.ts';
import type { ImportKindSummary } from './types.ts';

/**
 * The registry of import kinds, in the order `GET /v1/imports/kinds` lists them. Adding a kind is
 * one module implementing `ImportKindDefinition` and one line here.
 */
export const IMPORT_KINDS: readonly AnyImportKind[] = [
  itemsKind,
  locationsKind,
  stockAdjustmentsKind,
  stockTransfersKind,
  stockCountsKind,
  poReceiptsKind,
  bomsKind,
  buildsKind,
] as AnyImportKind[];

export function importKind(name: string): AnyImportKind | undefined {
  return IMPORT_KINDS.find((def) => def.kind === name);
}

/** The public description of a kind (GET /v1/imports/kinds, docs/imports.md "Kinds"), without the kind's behaviour. */
export function kindSummary(def: ImportKindSummary): ImportKindSummary {
  return {
    kind: def.kind,
    title: def.title,
    description: def.description,
    columns: def.columns.map((column) => ({
      name: column.name,
      required: column.required,
      type: column.type,
      description: column.description,
      ...(column.values === undefined ? {} : { values: [...column.values] }),
    })),
    naturalKey: [...def.naturalKey],
    duplicateStrategies: [...def.duplicateStrategies],
    maxFileBytes: def.maxFileBytes,
    maxRows: def.maxRows,
  };
}
