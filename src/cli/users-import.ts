/**
 * `biogate users import --location ID FILE`: a CSV file with a header row, or a
 * JSON array, through the same per-item validation and error report as
 * POST /api/users/import (and the same device sync).
 */
import { readFile } from 'node:fs/promises';
import { importUsers, IMPORT_MAX_ITEMS } from '../api/users.js';
import { systemClock } from '../clock.js';
import { loadConfig } from '../config/load.js';
import { EventBus } from '../devices/event-bus.js';
import { openStore } from '../store/open.js';
import { createSyncQueue } from '../sync/queue.js';
import { parseFlags, UsageError } from './args.js';
import type { CliIo } from './commands.js';

const INTEGER_COLUMNS = new Set(['password', 'privilege', 'group', 'super_authorize']);
const BOOLEAN_COLUMNS = new Set(['is_active']);

/** RFC 4180 CSV: quoted fields, doubled quotes, CR LF or LF. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"' && field === '') quoted = true;
    else if (c === ',') {
      row.push(field);
      field = '';
    }
    else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(field);
      if (row.some((f) => f !== '')) rows.push(row);
      row = [];
      field = '';
    } else field += c;
  }
  row.push(field);
  if (row.some((f) => f !== '')) rows.push(row);
  return rows;
}

/** CSV rows → the JSON items the API takes: empty cells are omitted; numbers and booleans converted where the text clearly is one. */
export function csvToItems(text: string): Record<string, unknown>[] {
  const [header, ...rows] = parseCsv(text.replace(/^\uFEFF/, ''));
  if (!header) return [];
  const names = header.map((h) => h.trim());
  if (!names.includes('pin')) throw new UsageError('the CSV header row must name a "pin" column');
  return rows.map((cells) => {
    const item: Record<string, unknown> = {};
    names.forEach((name, i) => {
      const cell = (cells[i] ?? '').trim();
      if (cell === '' || name === '') return;
      if (INTEGER_COLUMNS.has(name) && /^-?\d+$/.test(cell)) item[name] = Number(cell);
      else if (BOOLEAN_COLUMNS.has(name) && /^(true|false|1|0)$/i.test(cell)) item[name] = /^(true|1)$/i.test(cell);
      else item[name] = cell;
    });
    return item;
  });
}

export async function usersImportCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const f = parseFlags(argv, { location: { type: 'string' }, json: { type: 'boolean' } }, 1);
  const locationId = f.int('location', { required: true, min: 1 }) as number;
  const file = f.positionals[0];
  if (!file) throw new UsageError('give the FILE to import (CSV with a header row, or a JSON array)');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${(err as Error).message}`);
  }
  let items: unknown[];
  if (/^\s*\[/.test(text)) {
    try {
      items = JSON.parse(text) as unknown[];
    } catch (err) {
      throw new UsageError(`${file} is not valid JSON: ${(err as Error).message}`);
    }
  } else items = csvToItems(text);
  if (items.length > IMPORT_MAX_ITEMS) throw new UsageError(`at most ${IMPORT_MAX_ITEMS} users per import; ${file} has ${items.length}`);

  const config = loadConfig({ env: io.env, overrides: { bootstrap: 'off' } });
  const store = await openStore(config.store);
  try {
    const location = await store.locations.get(locationId);
    if (!location) throw new UsageError(`no location with id ${locationId}`);
    const bus = new EventBus();
    const deps = { store, clock: systemClock, bus, sync: createSyncQueue(store, systemClock, bus) };
    const progress = (done: number) => {
      if (!io.isTTY) return;
      const width = 30;
      const filled = Math.round((done / Math.max(1, items.length)) * width);
      io.stderr.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${items.length}`);
    };
    const { processed, errors } = await importUsers(deps, location, items, progress);
    if (io.isTTY) io.stderr.write('\n');
    const summary = { message: `Processed ${processed.length} users, ${errors.length} errors`, processed_count: processed.length, error_count: errors.length, errors };
    if (f.flag('json')) io.stdout.write(JSON.stringify(summary, null, 2) + '\n');
    else {
      io.stdout.write(`${summary.message} (location ${location.id} "${location.name}").\n`);
      errors.forEach((e, i) => io.stdout.write(`  error ${i + 1}: ${e.error} — ${JSON.stringify(e.user_data)}\n`));
    }
    return errors.length > 0 && processed.length === 0 ? 1 : 0;
  } finally {
    await store.close();
  }
}
