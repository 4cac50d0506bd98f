/**
 * Reading spreadsheets people really export: the one door of `csv-parse`.
 * Bytes → text (UTF-8, UTF-16 with a byte-order mark, Windows-1252 when the bytes are not UTF-8,
 * or what `--encoding` says), then text → rows with the delimiter the header line uses (comma,
 * semicolon — Excel in most of Europe — or tab), quoted fields, CRLF. Every row keeps the CSV line
 * it starts on, so an import can name it in its errors.
 */
import { CsvError, parse } from 'csv-parse/sync';
import { decodeBytes, isKnownEncoding } from '../charset.js';
import { UsageError } from './args.js';

export interface DecodedText {
  readonly text: string;
  /** What was used, as the operator would name it (`utf-8`, `utf-16le`, `windows-1252`, …). */
  readonly encoding: string;
  /** True when the file did not say (no BOM, no --encoding) and the bytes decided. */
  readonly detected: boolean;
}

export interface CsvRow {
  /** 1-based line of the file the row starts on (a quoted field may span lines). */
  readonly line: number;
  readonly cells: readonly string[];
}

export interface CsvTable {
  readonly delimiter: ',' | ';' | '\t';
  /** The header row, normalised: `First Name` → `first_name`, `PIN` → `pin`. */
  readonly header: readonly string[];
  readonly rows: readonly CsvRow[];
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Decodes a file. With `forced`, that encoding (checked against what iconv-lite knows); else a
 * byte-order mark decides (UTF-8, UTF-16 LE/BE); else UTF-8 when the bytes are valid UTF-8 and
 * Windows-1252 when they are not — a spreadsheet saved as "CSV" on Windows, where `José` is
 * `4A 6F 73 E9`, which is never valid UTF-8 (today it would import as `Jos\ufffd`).
 */
export function decodeCsvBytes(bytes: Uint8Array, forced?: string): DecodedText {
  if (forced !== undefined) {
    const name = forced.trim().toLowerCase();
    if (!isKnownEncoding(name))
      throw new UsageError(`--encoding: unknown encoding "${forced}" (try utf-8, utf-16le, utf-16be, windows-1252 or latin1)`);
    return { text: decodeBytes(bytes, name).replace(/^\uFEFF/, ''), encoding: name, detected: false };
  }
  const [b0, b1, b2] = bytes;
  if (b0 === 0xef && b1 === 0xbb && b2 === 0xbf)
    return { text: decodeBytes(bytes.subarray(3), 'utf-8'), encoding: 'utf-8', detected: false };
  if (b0 === 0xff && b1 === 0xfe) return { text: decodeBytes(bytes.subarray(2), 'utf-16le'), encoding: 'utf-16le', detected: false };
  if (b0 === 0xfe && b1 === 0xff) return { text: decodeBytes(bytes.subarray(2), 'utf-16be'), encoding: 'utf-16be', detected: false };
  // UTF-16 without a mark: ASCII text has a zero in every other byte, which neither UTF-8 nor
  // Windows-1252 text has (a spreadsheet never holds NUL).
  const half = utf16Without(bytes);
  if (half) return { text: decodeBytes(bytes, half), encoding: half, detected: true };
  try {
    return { text: utf8.decode(bytes), encoding: 'utf-8', detected: true };
  } catch {
    return { text: decodeBytes(bytes, 'windows-1252'), encoding: 'windows-1252', detected: true };
  }
}

function utf16Without(bytes: Uint8Array): 'utf-16le' | 'utf-16be' | undefined {
  const n = Math.min(bytes.length - (bytes.length % 2), 512);
  if (n < 4) return undefined;
  let evenZero = 0;
  let oddZero = 0;
  for (let i = 0; i < n; i += 2) {
    if (bytes[i] === 0) evenZero++;
    if (bytes[i + 1] === 0) oddZero++;
  }
  const pairs = n / 2;
  if (oddZero > pairs * 0.4 && evenZero === 0) return 'utf-16le';
  if (evenZero > pairs * 0.4 && oddZero === 0) return 'utf-16be';
  return undefined;
}

/** `First Name`, ` first-name `, `FIRST_NAME` → `first_name`. */
export function normaliseHeader(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
}

/** The delimiter the header line uses most (outside quotes); a comma when it uses none. */
export function detectDelimiter(text: string): ',' | ';' | '\t' {
  const counts = { ',': 0, ';': 0, '\t': 0 };
  let quoted = false;
  for (const c of text) {
    if (c === '"') quoted = !quoted;
    else if (!quoted && (c === '\n' || c === '\r')) break;
    else if (!quoted && (c === ',' || c === ';' || c === '\t')) counts[c]++;
  }
  const best = (Object.entries(counts) as [',' | ';' | '\t', number][]).sort((a, b) => b[1] - a[1])[0];
  return best && best[1] > 0 ? best[0] : ',';
}

/**
 * Parses CSV text with a header row. Blank lines are skipped; rows may have fewer or more cells
 * than the header (the import reports what is missing). A quote that is never closed is an error
 * naming the line it opens on: nothing of such a file is imported.
 */
export function parseCsvTable(text: string): CsvTable {
  // Line breaks as LF before parsing: csv-parse 7 counts a CRLF inside a quoted field as two lines,
  // which would shift every later line number; no user field may hold a line break anyway.
  text = text.replace(/\r\n?/g, '\n');
  const delimiter = detectDelimiter(text);
  const rows: CsvRow[] = [];
  // A record's first line: one after the previous record's last, past the blank lines skipped between.
  let lastEnd = 0;
  let lastEmpty = 0;
  let records: { record: string[]; info: { lines: number; empty_lines: number } }[];
  try {
    // With `info`, each record comes with where it ends (csv-parse's types do not follow the option).
    records = parse(text, {
      delimiter,
      bom: true,
      info: true,
      skip_empty_lines: true,
      relax_column_count: true,
      trim: false,
    }) as unknown as typeof records;
  } catch (err) {
    if (err instanceof CsvError && err.code === 'CSV_QUOTE_NOT_CLOSED') {
      throw new UsageError(
        `line ${openingLineOfUnclosedQuote(text, delimiter)}: a quoted field is never closed (a missing " ); nothing was imported`,
      );
    }
    if (err instanceof CsvError)
      throw new UsageError(`line ${String((err as CsvError & { lines?: number }).lines ?? '?')}: ${err.message}`);
    throw err;
  }
  for (const { record, info } of records) {
    const line = lastEnd + 1 + (info.empty_lines - lastEmpty);
    lastEnd = info.lines;
    lastEmpty = info.empty_lines;
    rows.push({ line, cells: record });
  }
  const [first, ...rest] = rows;
  if (!first) return { delimiter, header: [], rows: [] };
  return { delimiter, header: first.cells.map(normaliseHeader), rows: rest };
}

/**
 * The line where the quote that is never closed opens: csv-parse reports where it gave up (the end
 * of the file), but the operator needs the field that started it. Only for the error message.
 */
function openingLineOfUnclosedQuote(text: string, delimiter: string): number {
  let line = 1;
  let openedAt = 1;
  let quoted = false;
  let fieldStart = true;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') i++;
      else if (c === '"') quoted = false;
      else if (c === '\n') line++;
      continue;
    }
    if (c === '"' && fieldStart) {
      quoted = true;
      openedAt = line;
    }
    if (c === '\n') line++;
    fieldStart = c === delimiter || c === '\n' || c === '\r';
  }
  return openedAt;
}
