/**
 * `biogate attendance export --location ID --from T --to T [--format csv|jsonl]`: the location's
 * punches in [from, to], newest first (the store's order), streamed page by page to stdout so
 * a year of records never sits in memory. The columns and fields of `GET /api/attendance.csv` and the
 * API's records (src/views/attendance.ts); CSV through src/csv-out.ts (RFC 4180 quoting, LF line ends).
 */
import { csvRows } from '../csv-out.js';
import { instantOf } from '../validation/input.js';
import { BioGateError } from '../errors.js';
import { attendanceCsvCells, attendanceView, CSV_COLUMNS } from '../views/attendance.js';
import { UsageError, type Flags } from './args.js';
import { withStore, writeOut, type CliIo } from './io.js';

const PAGE = 1000;

function instantFlag(f: Flags, name: string): string {
  const raw = f.string(name, true) as string;
  const d = instantOf(raw);
  if (!d) throw new UsageError(`--${name} must be a date or datetime (ISO 8601, e.g. 2026-03-01 or 2026-03-01T08:00:00Z), got "${raw}"`);
  return d.toISOString();
}

export async function attendanceExport(f: Flags, io: CliIo): Promise<number> {
  const locationId = f.int('location', { required: true, min: 1 }) as number;
  const from = instantFlag(f, 'from');
  const to = instantFlag(f, 'to');
  if (from > to) throw new UsageError('--from must not be after --to');
  const format = f.string('format') ?? 'csv';
  if (format !== 'csv' && format !== 'jsonl') throw new UsageError(`--format must be csv or jsonl, got "${format}"`);
  return withStore(io, async (store) => {
    if (!(await store.locations.get(locationId))) throw new BioGateError('LOCATION_NOT_FOUND', `Location ${locationId} not found`);
    if (format === 'csv') await writeOut(io, csvRows([CSV_COLUMNS], 'lf'));
    for (let offset = 0; ; offset += PAGE) {
      const page = await store.attendance.list(locationId, { from, to }, { offset, limit: PAGE });
      if (page.items.length > 0) {
        await writeOut(
          io,
          format === 'csv'
            ? csvRows(page.items.map(attendanceCsvCells), 'lf')
            : page.items.map((a) => JSON.stringify(attendanceView(a))).join('\n') + '\n',
        );
      }
      if (page.items.length < PAGE) return 0;
    }
  });
}
