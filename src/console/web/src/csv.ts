/**
 * Reads the users CSV an operator picks, the way `biogate users import` does (README "Importing
 * users from a spreadsheet"), with the same reader (src/csv-table.ts, csv-parse's browser build):
 * header row, comma, semicolon or tab, quotes with doubled quotes and line breaks inside, any header
 * case and spacing. Each row becomes a POST /api/users/import item;
 * the API validates them one by one and reports per-row errors.
 */
import type { UserInput } from './api-types.js';
import { t } from './i18n/index.js';
import { CsvTableError, parseCsvTable, userCellValue, type CsvTable } from '../../../csv-table.js';

export interface CsvRow {
  /** Line of the file the row starts on (1 = the header). */
  readonly line: number;
  readonly item: Record<string, unknown>;
}

export interface ParsedCsv {
  readonly rows: CsvRow[];
  /** Columns that are not user fields (ignored, and said so). */
  readonly ignored: string[];
}

export class CsvError extends Error {}

/** The user fields a column may fill (typed: each is a field of an import item). */
const FIELDS: ReadonlySet<string> = new Set<keyof UserInput>([
  'pin',
  'first_name',
  'last_name',
  'card_no',
  'password',
  'privilege',
  'group',
  'is_active',
  'start_time',
  'end_time',
  'super_authorize',
  'department',
  'position',
]);
export function parseUsersCsv(text: string): ParsedCsv {
  let table: CsvTable;
  try {
    table = parseCsvTable(text);
  } catch (err) {
    if (err instanceof CsvTableError && err.unclosedQuote) throw new CsvError(t('csv.unclosed', { line: err.line ?? '?' }));
    if (err instanceof CsvTableError) throw new CsvError(err.message);
    throw err;
  }
  const { header: columns, rows: records } = table;
  if (columns.length === 0) throw new CsvError(t('csv.empty'));
  if (!columns.includes('pin')) throw new CsvError(t('csv.noPin'));
  const ignored = table.rawHeader.filter((_, i) => !FIELDS.has(columns[i] ?? ''));
  const rows = records.map(({ line, cells }) => {
    const item: Record<string, unknown> = {};
    columns.forEach((c, i) => {
      const raw = (cells[i] ?? '').trim();
      if (FIELDS.has(c) && raw !== '') item[c] = userCellValue(c, raw);
    });
    return { line, item };
  });
  return { rows, ignored };
}
