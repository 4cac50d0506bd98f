/**
 * Attendance with date, PIN and device filters. Dates are days in the location's time zone,
 * turned into UTC instants for the API; the CSV export asks /api/attendance.csv for exactly the
 * filter on screen.
 */
import { api, query, type Session } from './api.js';
import { DayFilters, PinField, useDayFilter } from './day-filters.js';
import type { Reply } from './api-types.js';
import { formatLocal, localToUtc, localToday } from './time.js';
import { HeaderRow, Notice, Pager, useLoad } from './ui.js';

/** GET /api/attendance without `after`: the page-numbered form of its reply (the other form is the cursor feed). */
type Punches = Extract<Reply<'/api/attendance', 'get'>, { page: number }>;

interface Filter {
  readonly from: string;
  readonly to: string;
  readonly pin: string;
  readonly sn: string;
}

/** The API's query for a filter of local days: [from 00:00, to 23:59:59.999] in the zone. */
export function apiFilter(f: Filter, zone: string): Record<string, string | undefined> {
  return {
    from: f.from ? localToUtc(f.from, '00:00:00.000', zone) : undefined,
    to: f.to ? localToUtc(f.to, '23:59:59.999', zone) : undefined,
    pin: f.pin || undefined,
    sn: f.sn || undefined,
  };
}

export function AttendancePage({ session, zone }: { session: Session & { kind: 'location' }; zone: string }) {
  const today = localToday(zone);
  const { filter, page, setPage, message, form } = useDayFilter<Filter>(
    session.token,
    { from: today, to: today, pin: '', sn: '' },
    { path: (f) => `/api/attendance.csv${query(apiFilter(f, zone))}`, file: 'attendance.csv' },
  );
  const list = useLoad(
    () => api<Punches>(session.token, 'GET', `/api/attendance${query({ ...apiFilter(filter, zone), page, limit: 50 })}`),
    [filter, page, zone],
  );

  return (
    <>
      <h1 tabIndex={-1}>Attendance</h1>
      <p class="lead">Times and dates in the location's time zone, {zone}.</p>
      <DayFilters {...form}>
        <PinField draft={form.draft} set={form.set} />
        <label>
          Device serial
          <input type="text" name="sn" value={form.draft.sn} onInput={form.set('sn')} />
        </label>
      </DayFilters>
      {message && <Notice kind={message.kind}>{message.text}</Notice>}
      {list.error && <Notice kind="error">{list.error}</Notice>}
      {list.data && (
        <p class="lead" aria-live="polite">
          {list.data.total} records.
        </p>
      )}
      {list.data && list.data.data.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption class="sr-only">Attendance records, newest first</caption>
            <thead>
              <HeaderRow columns={[`Time (${zone})`, 'PIN', 'Device', 'Status', 'Verified by']} />
            </thead>
            <tbody>
              {list.data.data.map((p) => (
                <tr key={p.id} class={p.voided_at ? 'voided' : undefined}>
                  <td>{formatLocal(p.timestamp, zone)}</td>
                  <td>{p.pin}</td>
                  <td>{p.sn ?? <span title={p.reason ?? undefined}>manual</span>}</td>
                  <td>
                    {p.status_label ?? p.status}
                    {p.voided_at && <span title={p.void_reason ?? undefined}> (voided)</span>}
                  </td>
                  <td>{p.verify_label ?? p.verify ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager page={list.data} onPage={setPage} label="Attendance" />
    </>
  );
}
