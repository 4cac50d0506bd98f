/**
 * CSV text → rows, the one reading of a users spreadsheet that `biogate users import` and the console's import share
 * (csv-parse does the parsing; the console bundles its browser build). The delimiter is the one the header line uses
 * (comma, semicolon — Excel in most of Europe — or tab), quoted fields may span lines, CRLF or LF, a byte-order mark
 * is dropped. Every row keeps the CSV line it starts on, so an import can name it in its errors. No Node API: this
 * file is also type-checked and bundled for the browser.
 */
import { CsvError, parse } from 'csv-parse/sync';

export interface CsvRow {
  /** 1-based line of the file the row starts on (a quoted field may span lines). */
  readonly line: number;
  readonly cells: readonly string[];
}

export interface CsvTable {
  readonly delimiter: ',' | ';' | '\t';
  /** The header row, normalised: `First Name` → `first_name`, `PIN` → `pin`. */
  readonly header: readonly string[];
  /** The header row as the file spells it. */
  readonly rawHeader: readonly string[];
  readonly rows: readonly CsvRow[];
}

/** A file that cannot be read as a table: where, and whether it is a quote never closed (the operator's usual slip). */
export class CsvTableError extends Error {
  constructor(
    readonly line: number | null,
    readonly unclosedQuote: boolean,
    detail: string,
  ) {
    super(
      unclosedQuote
        ? `line ${line ?? '?'}: a quoted field is never closed (a missing " ); nothing was imported`
        : `line ${line ?? '?'}: ${detail}`,
    );
  }
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
    if (err instanceof CsvError && err.code === 'CSV_QUOTE_NOT_CLOSED')
      throw new CsvTableError(openingLineOfUnclosedQuote(text, delimiter), true, err.message);
    if (err instanceof CsvError) throw new CsvTableError((err as CsvError & { lines?: number }).lines ?? null, false, err.message);
    throw err;
  }
  for (const { record, info } of records) {
    const line = lastEnd + 1 + (info.empty_lines - lastEmpty);
    lastEnd = info.lines;
    lastEmpty = info.empty_lines;
    rows.push({ line, cells: record });
  }
  const [first, ...rest] = rows;
  if (!first) return { delimiter, header: [], rawHeader: [], rows: [] };
  return { delimiter, header: first.cells.map(normaliseHeader), rawHeader: first.cells, rows: rest };
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

const INTEGER_COLUMNS: ReadonlySet<string> = new Set(['password', 'privilege', 'group', 'super_authorize']);

/**
 * What a users spreadsheet's cell stands for in an import item: a whole number in a numeric column, a boolean in
 * `is_active` (true/false, 1/0, yes/no, y/n, any case), otherwise the text; the API's validation reports the rest, per row.
 */
export function userCellValue(column: string, cell: string): unknown {
  if (INTEGER_COLUMNS.has(column) && /^-?\d+$/.test(cell)) return Number(cell);
  if (column === 'is_active' && /^(true|false|1|0|yes|no|y|n)$/i.test(cell)) return /^(true|1|yes|y)$/i.test(cell);
  return cell;
}
