/**
 * Attendance with date, PIN and device filters. Dates are days in the location's time zone,
 * turned into UTC instants for the API; the CSV export asks /api/attendance.csv for exactly the
 * filter on screen. People and terminals are shown by name (PIN and serial beside them), and the
 * page is live: punches of the filter arrive on top of the first page through the stream
 * (`attendance`), and a record voided elsewhere is marked where it is shown (`attendance/voided`).
 */
import { useEffect, useState } from 'preact/hooks';
import { api, query, type Session } from './api.js';
import { DayFilters, PinField, useDayFilter } from './day-filters.js';
import type { Reply } from './api-types.js';
import { formatLocal, localToUtc, localToday } from './time.js';
import { useDeviceNames, usePeopleNames } from './names.js';
import { openStream } from './stream.js';
import { HeaderRow, Notice, Pager, useLoad } from './ui.js';
import { t, useLanguage } from './i18n/index.js';

/** GET /api/attendance without `after`: the page-numbered form of its reply (the other form is the cursor feed). */
type Punches = Extract<Reply<'/api/attendance', 'get'>, { page: number }>;
type Punch = Punches['data'][number];

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

/** Whether a record pushed by the stream belongs to the filter on screen. */
export function inFilter(p: Punch, f: Filter, zone: string): boolean {
  const q = apiFilter(f, zone);
  if (q.pin && p.pin !== q.pin) return false;
  if (q.sn && p.sn !== q.sn) return false;
  const at = Date.parse(p.timestamp);
  return !(q.from && at < Date.parse(q.from)) && !(q.to && at > Date.parse(q.to));
}

/** Newest first; a punch from the stream replaces a loaded copy of itself. */
function merged(live: readonly Punch[], loaded: readonly Punch[]): Punch[] {
  const ids = new Set(live.map((p) => p.id));
  return [...live, ...loaded.filter((p) => !ids.has(p.id))].sort((a, b) => Date.parse(b.timestamp) - Date.parse(a.timestamp));
}

export function AttendancePage({ session, zone }: { session: Session & { kind: 'location' }; zone: string }) {
  useLanguage();
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
  // Live: new punches of the filter on top of the first page; voided records updated wherever they are on screen.
  const [added, setAdded] = useState<Punch[]>([]);
  const [voided, setVoided] = useState<ReadonlyMap<number, Punch>>(new Map());
  const [connected, setConnected] = useState(false);
  useEffect(() => {
    setAdded([]);
    return openStream({
      token: session.token,
      topics: ['attendance', 'attendance/voided'],
      onState: (state) => setConnected(state === 'live'),
      onMessage: (m) => {
        const p = m.payload as Punch | null;
        if (!p || typeof p.id !== 'number') return;
        if (m.topic === 'attendance/voided') setVoided((old) => new Map(old).set(p.id, p));
        else if (page === 1 && inFilter(p, filter, zone)) setAdded((old) => [p, ...old.filter((o) => o.id !== p.id)]);
      },
    });
  }, [session.token, filter, page, zone]);
  const loaded = list.data?.data ?? [];
  const loadedIds = new Set(loaded.map((p) => p.id));
  const rows = merged(added, loaded).map((p) => voided.get(p.id) ?? p);
  const extra = added.filter((p) => !loadedIds.has(p.id)).length;
  const terminals = useDeviceNames(session.token);
  const people = usePeopleNames(
    session.token,
    rows.map((p) => p.pin),
  );

  return (
    <>
      <h1 tabIndex={-1}>{t('attendance.title')}</h1>
      <p class="lead">
        {t('attendance.lead', { zone })}{' '}
        <span class="live" role="status">
          {page !== 1 ? t('attendance.firstPage') : connected ? t('attendance.live') : t('attendance.connecting')}
        </span>
      </p>
      <DayFilters {...form}>
        <PinField draft={form.draft} set={form.set} />
        <label>
          {t('attendance.serial')}
          <input type="text" name="sn" value={form.draft.sn} onInput={form.set('sn')} />
        </label>
      </DayFilters>
      {message && <Notice kind={message.kind}>{message.text}</Notice>}
      {list.error && <Notice kind="error">{list.error}</Notice>}
      {list.data && (
        <p class="lead" aria-live="polite">
          {t('attendance.records', { n: list.data.total + extra })}
        </p>
      )}
      {rows.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption class="sr-only">{t('attendance.caption')}</caption>
            <thead>
              <HeaderRow
                columns={[
                  t('attendance.time', { zone }),
                  t('attendance.person'),
                  t('attendance.terminal'),
                  t('attendance.status'),
                  t('attendance.verifiedBy'),
                ]}
              />
            </thead>
            <tbody>
              {rows.map((p) => {
                const name = people.get(p.pin);
                const terminal = p.sn === null ? null : terminals.get(p.sn);
                return (
                  <tr key={p.id} class={p.voided_at ? 'voided' : undefined} data-id={p.id}>
                    <td>{formatLocal(p.timestamp, zone)}</td>
                    <td>
                      {name ?? p.pin}
                      {name && <span class="hint"> · {p.pin}</span>}
                    </td>
                    <td>
                      {p.sn === null ? (
                        <span title={p.reason ?? undefined}>{t('attendance.manual')}</span>
                      ) : (
                        <>
                          {terminal ?? p.sn}
                          {terminal && <span class="hint"> · {p.sn}</span>}
                        </>
                      )}
                    </td>
                    <td>
                      {p.status_label ?? p.status}
                      {p.voided_at && <span title={p.void_reason ?? undefined}> {t('attendance.voided')}</span>}
                    </td>
                    <td>{p.verify_label ?? p.verify ?? '—'}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      <Pager page={list.data} onPage={setPage} label={t('attendance.title')} />
    </>
  );
}
