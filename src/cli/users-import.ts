/**
 * `biogate users import --location ID FILE [--dry-run] [--encoding ENC]`: a CSV file with a header
 * row (comma, semicolon or tab; UTF-8, UTF-16 or Windows-1252, see csv-in.ts), or a JSON array,
 * through the same per-item validation, error report and device sync as the REST import endpoint
 * (src/users/import.ts). Every error names the CSV line (or JSON item) it comes from.
 */
import { readFile, stat } from 'node:fs/promises';
import { systemClock } from '../clock.js';
import { createSyncQueue } from '../sync/queue.js';
import { importUsers, IMPORT_MAX_ITEMS } from '../users/import.js';
import { UserWrite } from '../users/schemas.js';
import { parseFlags, UsageError } from './args.js';
import { decodeCsvBytes, parseCsvTable } from './csv-in.js';
import { userCellValue } from '../csv-table.js';
import { withStore, type CliIo } from './io.js';

/** The columns a user has (UserWrite); other columns of a spreadsheet are ignored, with a warning. */
const KNOWN_COLUMNS = new Set(Object.keys(UserWrite.properties));

export interface CsvItems {
  readonly items: Record<string, unknown>[];
  /** The CSV line each item starts on, by item. */
  readonly lines: number[];
  /** Header names that are not user fields (normalised), skipped. */
  readonly ignored: string[];
  readonly delimiter: string;
}

/**
 * CSV rows → the JSON items the API takes: empty cells are omitted; numbers and booleans converted
 * where the text clearly is one (the API's validation reports the rest, per row).
 */
export function csvToItems(text: string): CsvItems {
  const { header, rows, delimiter } = parseCsvTable(text);
  if (!header.includes('pin'))
    throw new UsageError(`the CSV header row must name a "pin" column (found: ${header.join(', ') || 'nothing'})`);
  const ignored = header.filter((h) => h !== '' && !KNOWN_COLUMNS.has(h));
  const items = rows.map(({ cells }) => {
    const item: Record<string, unknown> = {};
    header.forEach((name, i) => {
      const cell = (cells[i] ?? '').trim();
      if (cell === '' || !KNOWN_COLUMNS.has(name)) return;
      item[name] = userCellValue(name, cell);
    });
    return item;
  });
  return { items, lines: rows.map((r) => r.line), ignored, delimiter };
}

/** Far above 10,000 users of a spreadsheet (IMPORT_MAX_ITEMS), far below what would strain memory. */
const IMPORT_MAX_FILE_BYTES = 32 * 1024 * 1024;

const DELIMITER_NAMES: Record<string, string> = { ',': 'comma', ';': 'semicolon', '\t': 'tab' };

export async function usersImportCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const f = parseFlags(
    argv,
    { location: { type: 'string' }, json: { type: 'boolean' }, 'dry-run': { type: 'boolean' }, encoding: { type: 'string' } },
    1,
  );
  const locationId = f.int('location', { required: true, min: 1 }) as number;
  const file = f.positionals[0];
  if (!file) throw new UsageError('give the FILE to import (CSV with a header row, or a JSON array)');
  const dryRun = f.flag('dry-run');
  let bytes: Uint8Array;
  try {
    const { size } = await stat(file);
    if (size > IMPORT_MAX_FILE_BYTES)
      throw new UsageError(`${file} is ${size} bytes; an import file may be at most ${IMPORT_MAX_FILE_BYTES} bytes (split it)`);
    bytes = await readFile(file);
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`cannot read ${file}: ${(err as Error).message}`);
  }
  const decoded = decodeCsvBytes(bytes, f.string('encoding'));
  let items: unknown[];
  /** The CSV line of each item; undefined for a JSON array (errors then name the item's position). */
  let lines: number[] | undefined;
  let source: string;
  if (/^\s*\[/.test(decoded.text)) {
    try {
      items = JSON.parse(decoded.text) as unknown[];
    } catch (err) {
      throw new UsageError(`${file} is not valid JSON: ${(err as Error).message}`);
    }
    source = 'JSON';
  } else {
    const csv = csvToItems(decoded.text);
    items = csv.items;
    lines = csv.lines;
    source = `CSV, ${DELIMITER_NAMES[csv.delimiter] ?? csv.delimiter}-separated, ${decoded.encoding}${decoded.detected ? ' (detected)' : ''}`;
    if (csv.ignored.length > 0)
      io.stderr.write(`biogate users import: ignoring columns that are not user fields: ${csv.ignored.join(', ')}\n`);
  }
  if (items.length > IMPORT_MAX_ITEMS) throw new UsageError(`at most ${IMPORT_MAX_ITEMS} users per import; ${file} has ${items.length}`);
  // Errors come back with the item itself: its position gives the line.
  const indexOf = new Map<unknown, number>(items.map((item, i) => [item, i]));

  return withStore(io, async (store, config, { bus }) => {
    const location = await store.locations.get(locationId);
    if (!location) throw new UsageError(`no location with id ${locationId}`);
    const deps = { store, clock: systemClock, bus, sync: createSyncQueue(store, systemClock, bus), quotaUsers: config.quotaUsers };
    const progress = (done: number) => {
      if (!io.isTTY) return;
      const width = 30;
      const filled = Math.round((done / Math.max(1, items.length)) * width);
      io.stderr.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${items.length}`);
    };
    const { processed, errors } = await importUsers(deps, location, items, progress, { dryRun });
    if (io.isTTY) io.stderr.write('\n');
    const located = errors.map((e) => {
      const index = indexOf.get(e.user_data) ?? -1;
      return lines ? { line: lines[index] ?? 0, ...e } : { item: index + 1, ...e };
    });
    const good = dryRun ? items.length - errors.length : processed.length;
    const message = dryRun
      ? `Dry run: ${good} users would be imported, ${errors.length} errors; nothing was written`
      : `Processed ${good} users, ${errors.length} errors`;
    const summary = { message, dry_run: dryRun, processed_count: good, error_count: errors.length, errors: located };
    if (f.flag('json')) io.stdout.write(JSON.stringify(summary, null, 2) + '\n');
    else {
      io.stdout.write(`${message} (location ${location.id} "${location.name}"; ${source}).\n`);
      located.forEach((e) =>
        io.stdout.write(`  ${'line' in e ? `line ${e.line}` : `item ${e.item}`}: ${e.error} — ${JSON.stringify(e.user_data)}\n`),
      );
    }
    return errors.length > 0 && good === 0 ? 1 : 0;
  });
}
