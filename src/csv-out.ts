/**
 * The one door to csv-stringify (DESIGN.md one-door rule): RFC 4180 rows, quoted where needed, for
 * GET /api/attendance.csv and `biogate attendance export`.
 *
 * Every cell whose text starts with `=`, `+`, `-`, `@`, TAB or CR gets a leading `'` (OWASP "CSV
 * Injection"): PINs, work codes and serials come from terminals, and a spreadsheet would run
 * `=HYPERLINK(…)` or `@SUM(…)` as a formula. A negative number is prefixed too (`'-1.5`): a
 * spreadsheet shows it as text, and the rule stays exactly OWASP's, with nothing to argue per column.
 */
import { stringify } from 'csv-stringify/sync';

export type CsvCell = string | number | boolean | null | undefined;

/** Characters a spreadsheet treats as the start of a formula (or that hide one: TAB, CR). */
const FORMULA_START = /^[=+\-@\t\r]/;

/** A cell as text, defused: `'` before a formula trigger; null and undefined become empty. */
export function csvCell(cell: CsvCell): string {
  if (cell === null || cell === undefined) return '';
  if (typeof cell === 'boolean') return cell ? '1' : ''; // as csv-stringify writes booleans
  const text = String(cell);
  return FORMULA_START.test(text) ? `'${text}` : text;
}

/**
 * Rows as CSV text, each line ending in CRLF (RFC 4180 §2), or in LF for files meant for Unix tools
 * (the CLI's stdout). Null and undefined become empty cells; formula triggers are defused (above).
 */
export function csvRows(rows: readonly (readonly CsvCell[])[], eol: 'crlf' | 'lf' = 'crlf'): string {
  return rows.length === 0
    ? ''
    : stringify(
        rows.map((r) => r.map(csvCell)),
        { record_delimiter: eol === 'crlf' ? 'windows' : 'unix' },
      );
}

/** The headers of a CSV download named `filename`: RFC 4180 with a header line, never cached. */
export function csvDownloadHeaders(filename: string): Record<string, string> {
  return {
    'Content-Type': 'text/csv; charset=utf-8; header=present',
    'Content-Disposition': `attachment; filename="${filename}"`,
    'Cache-Control': 'no-store',
  };
}
