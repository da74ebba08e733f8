import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CsvError, parse } from 'csv-parse';
import { unescapeFormula } from './csv-safety.ts';
import { FileBytesCheck } from './file-bytes.ts';
import type { ImportColumn, RawRow, RowError } from './types.ts';

/**
 * Reads an import file (docs/imports.md "Files") into data rows keyed by column.
 *
 * Format: UTF-8 (a leading BOM is dropped), comma-separated, `"` quotes with `""` as an escaped
 * quote; records end with CRLF, LF or CR (mixed endings are fine); quoted cells may contain
 * commas, quotes and line breaks. A `"` inside an unquoted cell is a literal character
 * (`12" ruler`). The first non-blank record is the header.
 *
 * Header: names are trimmed and matched case-insensitively against the kind's columns. A missing
 * required column, or a known column named twice, fails the file; an unknown (or unnamed) column is
 * a warning and its cells are ignored, however often its name repeats (one warning per name).
 *
 * Row numbers: `rowNumber` is the ordinal of the CSV record after the header, 1 = the first
 * record after the header. Blank records (an empty line, or a line whose cells are all empty or
 * whitespace, e.g. `,,,` from a spreadsheet) are skipped but keep their number, so when no cell
 * spans lines, row N is line N + 1 of the file and row N + 1 of the spreadsheet. A quoted cell with
 * line breaks keeps its record one row, as a spreadsheet shows it.
 *
 * Rows: each RawRow maps the lower-cased name of every known column present in the header to the
 * cell exactly as given (never trimmed, never evaluated: `=SUM(A1)` stays text). A row with fewer
 * cells than the header gets `''` for the missing trailing cells; a row with more cells than the
 * header is a row error `extra-cells` unless the extra cells are all empty (trailing commas).
 *
 * Failures (the whole file; the job fails): `not-utf8`, `empty-file` (no non-blank record),
 * `missing-required-column`, `duplicate-column` (a known column named twice), `not-csv` (broken quoting or NUL characters;
 * the message names the row and line), `too-many-rows` (more than `maxRows` non-blank data rows).
 */

export interface CsvRow {
  rowNumber: number;
  raw: RawRow;
}

export interface CsvWarning {
  column: string;
  code: 'unknown-column';
  message: string;
}

export type CsvFailureCode = 'not-utf8' | 'empty-file' | 'missing-required-column' | 'duplicate-column' | 'not-csv' | 'too-many-rows';

export interface CsvFailure {
  code: CsvFailureCode;
  message: string;
}

export type CsvReadResult =
  | {
      ok: true;
      /** The header cells as given. */
      header: string[];
      /** Data rows without structural problems, in file order. */
      rows: CsvRow[];
      /** Structural row problems (`extra-cells`); those rows are not in `rows`. */
      rowErrors: RowError[];
      /**
       * The rows `rowErrors` refused, with the cells of the header's columns: not applied, but a
       * kind that groups rows reads their group key, so a refused row spoils its group.
       */
      refusedRows: CsvRow[];
      warnings: CsvWarning[];
    }
  | { ok: false; failure: CsvFailure };

export interface CsvReadSpec {
  columns: readonly ImportColumn[];
  maxRows: number;
}

/** Thrown from the record hook to stop parsing early; never escapes `readCsv`. */
class StopReading extends Error {
  constructor(readonly failure: CsvFailure) {
    super(failure.message);
  }
}

function isBlank(record: readonly string[]): boolean {
  return record.every((cell) => cell.trim() === '');
}

function describeCsvError(error: CsvError): string {
  switch (error.code) {
    case 'CSV_QUOTE_NOT_CLOSED':
      return 'a quoted cell is not closed (a `"` without its closing `"`)';
    case 'CSV_INVALID_CLOSING_QUOTE':
      return 'a closing quote is followed by other characters';
    default:
      return error.message;
  }
}

/** More columns than any kind has, by far; a wider header is not a file we can mean. */
export const MAX_COLUMNS = 1000;
const NAME_SHOWN_MAX = 100;
/** Unknown columns reported by name; any beyond are ignored silently (the file has 1000 at most). */
const MAX_WARNINGS = 20;

/** Names echoed in messages and warnings are clipped: they come from the file. */
function clip(text: string): string {
  return text.length > NAME_SHOWN_MAX ? `${text.slice(0, NAME_SHOWN_MAX)}…` : text;
}

interface HeaderPlan {
  /** Per header position: the lower-cased known column name, or null (unknown/unnamed). */
  keys: (string | null)[];
  warnings: CsvWarning[];
}

function planHeader(header: readonly string[], columns: readonly ImportColumn[]): HeaderPlan | CsvFailure {
  const byName = new Map(columns.map((column) => [column.name.toLowerCase(), column]));
  const names = header.map((cell) => cell.trim());
  const lower = names.map((name) => name.toLowerCase());

  if (header.length > MAX_COLUMNS) {
    return { code: 'not-csv', message: `The header has ${header.length} columns; at most ${MAX_COLUMNS} are read.` };
  }
  // Per name (lower-cased): where it first appears and how often. Only a known column named twice
  // is ambiguous (which cell is the value?); an unknown one is ignored however often it appears.
  const occurrences = new Map<string, { first: number; count: number }>();
  lower.forEach((name, index) => {
    if (name === '') return;
    const seen = occurrences.get(name);
    if (seen) seen.count += 1;
    else occurrences.set(name, { first: index, count: 1 });
  });
  const duplicates = [...occurrences].filter(([name, { count }]) => count > 1 && byName.has(name)).map(([name]) => name);
  if (duplicates.length > 0) {
    const shown = duplicates.slice(0, 10).map((name) => clip(byName.get(name)?.name ?? name));
    return { code: 'duplicate-column', message: `The header names a column more than once: ${shown.join(', ')}.` };
  }

  const missing = columns.filter((column) => column.required && !lower.includes(column.name.toLowerCase())).map((column) => column.name);
  if (missing.length > 0) {
    const semicolon = header.length === 1 && (header[0] ?? '').includes(';') ? ' The file seems to use ";" as separator; only "," is supported.' : '';
    return {
      code: 'missing-required-column',
      message: `The header lacks required column${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}.${semicolon}`,
    };
  }

  const warnings: CsvWarning[] = [];
  const unnamed: number[] = [];
  const keys = lower.map((name, index) => {
    if (byName.has(name)) return name;
    if (name === '') unnamed.push(index + 1);
    else {
      const { first, count } = occurrences.get(name) ?? { first: index, count: 1 };
      // One warning per unknown name, at its first appearance, written as the file first wrote it.
      if (first === index && warnings.length < MAX_WARNINGS) {
        const shown = clip(names[index] ?? name);
        const repeated = count > 1 ? ` (named ${count} times)` : '';
        warnings.push({
          column: shown,
          code: 'unknown-column',
          message: `Column "${shown}"${repeated} is not a column of this kind; its cells are ignored. Known columns: ${columns.map((c) => c.name).join(', ')}.`,
        });
      }
    }
    return null;
  });
  if (unnamed.length > 0) {
    warnings.push({
      column: '',
      code: 'unknown-column',
      message: `Column${unnamed.length > 1 ? 's' : ''} ${unnamed.slice(0, 20).join(', ')}${unnamed.length > 20 ? ', …' : ''} of the header ${unnamed.length > 1 ? 'have' : 'has'} no name; ${unnamed.length > 1 ? 'their' : 'its'} cells are ignored.`,
    });
  }
  return { keys, warnings };
}

/** A whole file, or its chunks as they arrive (e.g. an S3 object's body). */
export type CsvSource = Uint8Array | AsyncIterable<Uint8Array>;

/** The file is read in blocks of this size, whatever sizes its chunks arrive in. */
export const READ_BLOCK_BYTES = 64 * 1024;

/**
 * The source re-cut into blocks of `size` bytes (the last may be shorter). A file with several
 * problems then reports the same first one however the network cut it.
 */
async function* blocksOf(source: CsvSource, size: number): AsyncGenerator<Uint8Array> {
  let block = new Uint8Array(size);
  let filled = 0;
  for await (const chunk of source instanceof Uint8Array ? [source] : source) {
    for (let taken = 0; taken < chunk.length;) {
      const part = chunk.subarray(taken, taken + size - filled);
      block.set(part, filled);
      filled += part.length;
      taken += part.length;
      if (filled === size) {
        yield block;
        block = new Uint8Array(size);
        filled = 0;
      }
    }
  }
  if (filled > 0) yield block.subarray(0, filled);
}

/** Reads the file block by block: only the rows are kept, never the whole file's bytes. */
export async function readCsv(source: CsvSource, kind: CsvReadSpec, blockBytes = READ_BLOCK_BYTES): Promise<CsvReadResult> {
  let plan: HeaderPlan | undefined;
  let header: string[] | undefined;
  /** Ordinal (1-based, among all records) of the header record. */
  let headerRecord = 0;
  let lastRecord = 0;
  let lastLine = 0;
  let dataRows = 0;
  const rows: CsvRow[] = [];
  const rowErrors: RowError[] = [];
  const refusedRows: CsvRow[] = [];

  const onRecord = (record: string[], context: { records: number; lines: number }): null => {
    const ordinal = context.records;
    lastRecord = ordinal;
    lastLine = context.lines;
    if (plan === undefined) {
      if (isBlank(record)) return null;
      const planned = planHeader(record, kind.columns);
      if ('code' in planned) throw new StopReading(planned);
      plan = planned;
      header = record;
      headerRecord = ordinal;
      return null;
    }
    if (isBlank(record)) return null;
    const rowNumber = ordinal - headerRecord;
    dataRows += 1;
    if (dataRows > kind.maxRows) {
      throw new StopReading({ code: 'too-many-rows', message: `The file has more than ${kind.maxRows} data rows (the limit of this kind).` });
    }
    const width = plan.keys.length;
    const raw: Record<string, string> = {};
    plan.keys.forEach((key, index) => {
      // A cell escaped against formula injection (an exported file) reads as its value.
      if (key !== null) raw[key] = unescapeFormula(record[index] ?? '');
    });
    if (record.length > width) {
      const extra = record.slice(width).find((cell) => cell.trim() !== '');
      if (extra !== undefined) {
        rowErrors.push({
          rowNumber,
          column: null,
          value: extra,
          code: 'extra-cells',
          message: `The row has ${record.length} cells but the header has ${width} columns.`,
        });
        refusedRows.push({ rowNumber, raw });
        return null;
      }
    }
    rows.push({ rowNumber, raw });
    return null;
  };

  const bytes = new FileBytesCheck();
  async function* checked(): AsyncGenerator<Uint8Array> {
    for await (const chunk of blocksOf(source, blockBytes)) {
      const problem = bytes.check(chunk);
      if (problem) throw new StopReading(problem);
      yield chunk;
    }
    const problem = bytes.end();
    if (problem) throw new StopReading(problem);
  }
  const parser = parse({
    bom: true,
    encoding: 'utf8',
    relax_column_count: true,
    relax_quotes: true,
    record_delimiter: ['\r\n', '\n', '\r'],
    skip_empty_lines: false,
    on_record: onRecord,
  });
  // on_record keeps every row, so the parser emits nothing for the sink to hold.
  const sink = new Writable({ objectMode: true, write: (_record, _encoding, done) => done() });
  try {
    await pipeline(Readable.from(checked()), parser, sink);
  } catch (error) {
    if (error instanceof StopReading) return { ok: false, failure: error.failure };
    if (error instanceof CsvError) {
      const line = lastLine + 1;
      const where = plan === undefined ? `The header row (line ${line})` : `Row ${lastRecord + 1 - headerRecord} (line ${line})`;
      return { ok: false, failure: { code: 'not-csv', message: `${where} is not valid CSV: ${describeCsvError(error)}.` } };
    }
    throw error;
  }

  if (plan === undefined || header === undefined) {
    return { ok: false, failure: { code: 'empty-file', message: 'The file is empty: it has no header row.' } };
  }
  return { ok: true, header, rows, rowErrors, refusedRows, warnings: plan.warnings };
}
