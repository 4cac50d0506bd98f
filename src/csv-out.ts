/**
 * The one door to csv-stringify (DESIGN.md one-door rule): RFC 4180 rows, quoted where needed, for
 * GET /api/attendance.csv and `biogate attendance export`.
 */
import { stringify } from 'csv-stringify/sync';

export type CsvCell = string | number | boolean | null | undefined;

/**
 * Rows as CSV text, each line ending in CRLF (RFC 4180 §2), or in LF for files meant for Unix tools
 * (the CLI's stdout). Null and undefined become empty cells.
 */
export function csvRows(rows: readonly (readonly CsvCell[])[], eol: 'crlf' | 'lf' = 'crlf'): string {
  return rows.length === 0
    ? ''
    : stringify(
        rows.map((r) => [...r]),
        { record_delimiter: eol === 'crlf' ? 'windows' : 'unix' },
      );
}
