/**
 * The names of the registered import kinds (the registry is kinds.ts), for the submission, which
 * only has to know that a kind exists: importing the registry would bundle every kind's row parser
 * and stock decisions into it (docs/performance.md "Bundles").
 * test/unit/imports/kind-summaries.test.ts holds this list equal to the registry's.
 */
export const IMPORT_KIND_NAMES: readonly string[] = [
  'items',
  'locations',
  'stock-adjustments',
  'stock-transfers',
  'stock-counts',
  'po-receipts',
  'boms',
  'builds',
];

export const isImportKind = (name: string): boolean => IMPORT_KIND_NAMES.includes(name);
