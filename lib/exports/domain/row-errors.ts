import { readCsv, type CsvSource } from '../../platform/csv/csv-reader.ts';
import type { ImportColumn, RowError } from '../../imports/index.ts';
import type { ExportColumn } from './kinds.ts';
import type { ExportSource, ImportRowErrorExports } from './sources.ts';

/**
 * The `import-row-errors` export: each stored row error of one import job with its row as it was
 * in the file (the columns of the job's kind, as given), so a user fixes the file and submits it
 * again. A row with several errors appears once per error. The file is read again for each page
 * of errors (import files are at most 4 MiB; docs/imports.md "Files").
 */

export interface RowErrorPorts {
  job(organizationId: string, jobId: string): Promise<{ kind: string; fileKey: string } | undefined>;
  rowErrors(organizationId: string, jobId: string, after: string | undefined, limit: number): Promise<{ errors: RowError[]; last?: string; more: boolean }>;
  openFile(fileKey: string): Promise<CsvSource>;
  kindColumns(kind: string): readonly ImportColumn[] | undefined;
}

/** Generous: the job was read once under its kind's own limit. */
const MAX_ROWS_READ = 1_000_000;

export class RowErrorExports implements ImportRowErrorExports {
  constructor(private readonly ports: RowErrorPorts) {}

  async open(organizationId: string, importJobId: string): Promise<ExportSource | undefined> {
    const job = importJobId.startsWith('imp_') ? await this.ports.job(organizationId, importJobId) : undefined;
    const columns = job ? this.ports.kindColumns(job.kind) : undefined;
    if (!job || !columns) return undefined;
    const leadingColumns: ExportColumn[] = columns.map((column) => ({ name: column.name, type: 'string', description: column.description }));
    return {
      leadingColumns,
      page: async (after, limit) => {
        const page = await this.ports.rowErrors(organizationId, importJobId, after, limit);
        if (page.errors.length === 0) return { rows: [], ...(page.last === undefined ? {} : { last: page.last }), more: false };
        const wanted = new Set(page.errors.map((error) => error.rowNumber));
        const read = await readCsv(await this.ports.openFile(job.fileKey), { columns, maxRows: MAX_ROWS_READ });
        const cells = new Map<number, Readonly<Record<string, string>>>();
        if (read.ok) for (const row of read.rows) if (wanted.has(row.rowNumber)) cells.set(row.rowNumber, row.raw);
        const rows = page.errors.map((error) => {
          const raw = cells.get(error.rowNumber) ?? {};
          const row: Record<string, string | number | null> = {};
          for (const column of columns) row[column.name] = raw[column.name.toLowerCase()] ?? null;
          return { ...row, rowNumber: error.rowNumber, errorColumn: error.column, errorCode: error.code, errorMessage: error.message };
        });
        return { rows, ...(page.last === undefined ? {} : { last: page.last }), more: page.more };
      },
    };
  }
}
