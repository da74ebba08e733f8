/**
 * Import kinds (docs/imports.md "Kinds"): each kind is one module implementing ImportKindDefinition,
 * registered in `kinds.ts`; the pipeline (submission, worker) is the same for every kind.
 */

export const DUPLICATE_STRATEGIES = ['skip', 'update', 'fail'] as const;
export type DuplicateStrategy = (typeof DUPLICATE_STRATEGIES)[number];

export const MAX_FILE_BYTES = 4 * 1024 * 1024;
export const MAX_ROWS = 100_000;

import type { ImportColumn, RawRow, RowError } from '../../platform/csv/types.ts';

export type { ImportColumn, RawRow, RowError };

export type RowParse<T> = { ok: true; value: T } | { ok: false; errors: RowError[] };

/** What an applied row did (the job's `counts`: docs/imports.md "The job"). */
export type RowAction = 'created' | 'updated' | 'skipped';

export interface ImportKindSummary {
  kind: string;
  title: string;
  description: string;
  columns: readonly ImportColumn[];
  naturalKey: readonly string[];
  duplicateStrategies: readonly DuplicateStrategy[];
  maxFileBytes: number;
  maxRows: number;
}
