/**
 * Reads the users CSV an operator picks, the way `biogate users import` does (README "Importing
 * users from a spreadsheet"): header row, comma, semicolon or tab, quotes with doubled quotes and
 * line breaks inside, any header case and spacing. Each row becomes a POST /api/users/import item;
 * the API validates them one by one and reports per-row errors.
 */
import type { UserInput } from './api-types.js';
import { t } from './i18n/index.js';

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
]);
const NUMBERS: ReadonlySet<string> = new Set<keyof UserInput>(['privilege', 'group', 'super_authorize']);

export const normaliseHeader = (h: string): string =>
  h
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');

/** Splits text into records of fields, remembering the line each record starts on. */
function records(text: string, delimiter: string): { line: number; fields: string[] }[] {
  const out: { line: number; fields: string[] }[] = [];
  let fields: string[] = [];
  let field = '';
  let quoted = false;
  let line = 1;
  let start = 1;
  let quoteLine = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i++;
        } else quoted = false;
      } else {
        if (c === '\n') line++;
        field += c;
      }
    } else if (c === '"' && field === '') {
      quoted = true;
      quoteLine = line;
    } else if (c === delimiter) {
      fields.push(field);
      field = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      fields.push(field);
      if (fields.some((f) => f !== '')) out.push({ line: start, fields });
      fields = [];
      field = '';
      line++;
      start = line;
    } else field += c;
  }
  if (quoted) throw new CsvError(t('csv.unclosed', { line: quoteLine }));
  fields.push(field);
  if (fields.some((f) => f !== '')) out.push({ line: start, fields });
  return out;
}

function value(field: string, raw: string): unknown {
  if (NUMBERS.has(field) && /^-?\d+$/.test(raw)) return Number(raw);
  if (field === 'is_active') {
    const v = raw.toLowerCase();
    if (['true', '1', 'yes', 'y'].includes(v)) return true;
    if (['false', '0', 'no', 'n'].includes(v)) return false;
  }
  return raw; // the API says what is wrong with anything else
}

export function parseUsersCsv(text: string): ParsedCsv {
  const body = text.replace(/^\uFEFF/, '');
  const firstLine = body.slice(0, body.search(/\r|\n|$/));
  const delimiter = [';', '\t', ','].map((d) => [d, firstLine.split(d).length] as const).sort((a, b) => b[1] - a[1])[0]?.[0] ?? ',';
  const [header, ...rest] = records(body, delimiter);
  if (!header) throw new CsvError(t('csv.empty'));
  const columns = header.fields.map(normaliseHeader);
  if (!columns.includes('pin')) throw new CsvError(t('csv.noPin'));
  const ignored = header.fields.filter((_, i) => !FIELDS.has(columns[i] ?? ''));
  const rows = rest.map(({ line, fields }) => {
    const item: Record<string, unknown> = {};
    columns.forEach((c, i) => {
      const raw = (fields[i] ?? '').trim();
      if (FIELDS.has(c) && raw !== '') item[c] = value(c, raw);
    });
    return { line, item };
  });
  return { rows, ignored };
}
