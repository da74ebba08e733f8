/**
 * Checks an import file's bytes as they stream in (docs/imports.md "Files"): well-formed UTF-8
 * and no NUL character. The file is never held whole, so the check keeps only what a problem's
 * message needs: the byte offset, the line (LF, CRLF or a lone CR ends one), the first bytes (to
 * recognise a workbook or UTF-16) and the unfinished multi-byte sequence at a chunk's end.
 */

export interface FileBytesProblem {
  code: 'not-utf8' | 'not-csv';
  message: string;
}

const LF = 0x0a;
const CR = 0x0d;

/** Offset of the first byte that is not part of a well-formed UTF-8 sequence, or -1. */
export function firstInvalidUtf8Byte(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const byte = bytes[i] ?? 0;
    if (byte < 0x80) {
      i += 1;
      continue;
    }
    let length: number;
    let min: number;
    if (byte >= 0xc2 && byte <= 0xdf) [length, min] = [2, 0x80];
    else if (byte >= 0xe0 && byte <= 0xef) [length, min] = [3, 0x800];
    else if (byte >= 0xf0 && byte <= 0xf4) [length, min] = [4, 0x10000];
    else return i;
    let codePoint = byte & (0xff >> (length + 1));
    for (let k = 1; k < length; k += 1) {
      const next = bytes[i + k];
      if (next === undefined || (next & 0xc0) !== 0x80) return i;
      codePoint = (codePoint << 6) | (next & 0x3f);
    }
    if (codePoint < min || codePoint > 0x10ffff || (codePoint >= 0xd800 && codePoint <= 0xdfff)) return i;
    i += length;
  }
  return -1;
}

/** How many bytes at the end of `bytes` start a multi-byte sequence that the next chunk finishes. */
function unfinishedTail(bytes: Uint8Array): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back += 1) {
    const byte = bytes[bytes.length - back] ?? 0;
    if ((byte & 0xc0) === 0x80) continue; // a continuation byte: look further back
    const length = byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1;
    return length > back ? back : 0;
  }
  return 0;
}

export class FileBytesCheck {
  private readonly decoder = new TextDecoder('utf-8', { fatal: true });
  private offset = 0;
  /** The line the next byte is on; a CR at a chunk's end is settled by the next chunk's first byte. */
  private line = 1;
  private pendingCR = false;
  private head: number[] = [];
  private tail: Uint8Array = new Uint8Array(0);

  /** Checks the next chunk; a problem ends the file's reading. */
  check(chunk: Uint8Array): FileBytesProblem | undefined {
    if (this.head.length < 2) this.head.push(...chunk.subarray(0, 2 - this.head.length));
    // The first problem in file order is the one reported.
    // Positions count from the start of the unfinished sequence the previous chunk ended with.
    const bytes = concat(this.tail, chunk);
    let invalid = -1;
    try {
      this.decoder.decode(chunk, { stream: true });
    } catch {
      invalid = Math.max(0, firstInvalidUtf8Byte(bytes));
    }
    const nul = bytes.indexOf(0);
    // A workbook or UTF-16 file has NULs early; its hint says more than the NUL does.
    if (nul >= 0 && this.binaryHint() !== undefined) invalid = invalid < 0 ? nul : Math.min(nul, invalid);
    else if (nul >= 0 && (invalid < 0 || nul < invalid)) {
      const line = this.lineAt(bytes, nul);
      return { code: 'not-csv', message: `The file contains NUL characters (first at line ${line}); it is binary or UTF-16, not a UTF-8 CSV file.` };
    }
    if (invalid >= 0) return this.notUtf8(this.offset - this.tail.length + invalid, this.lineAt(bytes, invalid));
    this.advance(chunk);
    return undefined;
  }

  /** After the last chunk: a multi-byte sequence the file cut off is a problem too. */
  end(): FileBytesProblem | undefined {
    try {
      this.decoder.decode();
    } catch {
      return this.notUtf8(this.offset - this.tail.length, this.line);
    }
    return undefined;
  }

  private advance(chunk: Uint8Array): void {
    this.line = this.lineAt(chunk, chunk.length);
    this.pendingCR = chunk.at(-1) === CR;
    if (this.pendingCR) this.line -= 1;
    this.offset += chunk.length;
    // An unfinished sequence starts within the last 3 bytes (a short chunk may continue the previous tail).
    const window = concat(this.tail, chunk.subarray(Math.max(0, chunk.length - 3)));
    this.tail = window.subarray(window.length - unfinishedTail(window));
  }

  /** The line of byte `index` of `bytes`, which follow everything checked so far. */
  private lineAt(bytes: Uint8Array, index: number): number {
    let line = this.line;
    if (this.pendingCR && bytes[0] !== LF) line += 1;
    for (let i = 0; i < index; i += 1) {
      const byte = bytes[i];
      if (byte === LF || (byte === CR && bytes[i + 1] !== LF)) line += 1;
    }
    return line;
  }

  /** What the file's first bytes say it is, when that is a known non-CSV format. */
  private binaryHint(): string | undefined {
    const [first, second] = this.head;
    if (first === 0x50 && second === 0x4b) return ' It looks like a spreadsheet workbook (e.g. .xlsx); export it as "CSV UTF-8".';
    if ((first === 0xff && second === 0xfe) || (first === 0xfe && second === 0xff)) return ' It looks like UTF-16; save it as "CSV UTF-8".';
    return undefined;
  }

  private notUtf8(offset: number, line: number): FileBytesProblem {
    const hint = this.binaryHint() ?? ' Save it as "CSV UTF-8".';
    return { code: 'not-utf8', message: `The file is not valid UTF-8 (first invalid byte at line ${line}, byte offset ${offset}).${hint}` };
  }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length === 0) return b;
  const joined = new Uint8Array(a.length + b.length);
  joined.set(a);
  joined.set(b, a.length);
  return joined;
}
