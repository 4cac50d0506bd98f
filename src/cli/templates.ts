/**
 * `biogate templates export --location ID` and `biogate templates import --location ID FILE` (issue #35
 * item 5): a location's biometric templates as NDJSON, one JSON object a line with the fields of
 * `PUT /api/users/{pin}/templates/{type}/{index}` plus `pin`, `type` and `index` (src/users/templates.ts).
 * The import checks every line before writing any; a bad line is reported with its number and skipped.
 */
import { readFile, stat } from 'node:fs/promises';
import { systemClock } from '../clock.js';
import { BioGateError } from '../errors.js';
import { createSyncQueue } from '../sync/queue.js';
import { importTemplates, templateLine, type TemplateImportLine } from '../users/templates.js';
import { UsageError, type Flags } from './args.js';
import { print, withStore, writeOut, type CliIo } from './io.js';

const PAGE = 500;
/** 64 KiB a template, a few thousand users: far below what would strain memory. */
const IMPORT_MAX_FILE_BYTES = 256 * 1024 * 1024;

export async function templatesExport(f: Flags, io: CliIo): Promise<number> {
  const locationId = f.int('location', { required: true, min: 1 }) as number;
  return withStore(io, async (store) => {
    if (!(await store.locations.get(locationId))) throw new BioGateError('LOCATION_NOT_FOUND', `Location ${locationId} not found`);
    for (let offset = 0; ; offset += PAGE) {
      const page = await store.users.list(locationId, {}, { offset, limit: PAGE });
      const templates = await store.templates.listForUsers(
        locationId,
        page.items.map((u) => u.pin),
      );
      if (templates.length > 0) await writeOut(io, templates.map((t) => JSON.stringify(templateLine(t))).join('\n') + '\n');
      if (page.items.length < PAGE) return 0;
    }
  });
}

async function readLines(file: string): Promise<TemplateImportLine[]> {
  let text: string;
  try {
    const { size } = await stat(file);
    if (size > IMPORT_MAX_FILE_BYTES)
      throw new UsageError(`${file} is ${size} bytes; an import file may be at most ${IMPORT_MAX_FILE_BYTES} bytes (split it)`);
    text = (await readFile(file)).toString('utf8');
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`cannot read ${file}: ${(err as Error).message}`);
  }
  return text
    .replace(/^\uFEFF/, '')
    .split('\n')
    .map((line, i) => ({ line: i + 1, text: line.trim() }))
    .filter((l) => l.text !== '');
}

export async function templatesImport(f: Flags, io: CliIo): Promise<number> {
  const locationId = f.int('location', { required: true, min: 1 }) as number;
  const file = f.positionals[0];
  if (!file) throw new UsageError('give the FILE to import (NDJSON, as `biogate templates export` writes it)');
  const lines = await readLines(file);
  return withStore(io, async (store, _config, { bus }) => {
    const location = await store.locations.get(locationId);
    if (!location) throw new BioGateError('LOCATION_NOT_FOUND', `Location ${locationId} not found`);
    const sync = createSyncQueue(store, systemClock, bus);
    const r = await importTemplates({ store, clock: systemClock, sync }, location, lines);
    const message = `Imported ${r.written} templates (${r.unchanged} already stored as they are) for ${r.users} users, ${r.errors.length} lines skipped`;
    if (f.flag('json')) print(io, JSON.stringify({ message, ...r }, null, 2));
    else {
      print(io, `${message} (location ${location.id} "${location.name}").`);
      for (const e of r.errors) print(io, `  line ${e.line}: ${e.error}`);
    }
    return r.errors.length > 0 && r.written + r.unchanged === 0 ? 1 : 0;
  });
}
