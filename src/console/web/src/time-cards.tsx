/**
 * Daily time cards (GET /api/attendance/daily): first in, last out and worked time per user and working day in the
 * location's zone, filtered by days, PIN and area; the CSV export asks /api/attendance/daily.csv for the filter on
 * screen. How a day is cut and repeats are left out is the location's (`day_start_hour`, `attendance_debounce_s`).
 */
import { api, query, type Session } from './api.js';
import type { Reply } from './api-types.js';
import { allAreas } from './areas.js';
import { DayFilters, PinField, useDayFilter } from './day-filters.js';
import { localToday } from './time.js';
import { NamedOptions, Notice, Pager, Table, useLoad } from './ui.js';
import { t, useLanguage } from './i18n/index.js';

type Cards = Reply<'/api/attendance/daily', 'get'>;

interface Filter {
  readonly from: string;
  readonly to: string;
  readonly pin: string;
  readonly area: string;
}

const LIMIT = 50;

/** The API's query for a filter: days as they are (the API reads them in the location's zone). */
function apiQuery(f: Filter): Record<string, string | undefined> {
  return { from: f.from || undefined, to: f.to || undefined, pin: f.pin || undefined, area_id: f.area || undefined };
}

/** 450 → "7:30". */
export const hoursAndMinutes = (minutes: number): string => `${Math.floor(minutes / 60)}:${String(minutes % 60).padStart(2, '0')}`;

/** `2026-03-29T06:30:00+02:00` → `06:30`, with the date when it is not the card's day. */
function clock(iso: string | null, date: string): string {
  if (iso === null) return '—';
  const day = iso.slice(0, 10);
  return day === date ? iso.slice(11, 16) : `${day} ${iso.slice(11, 16)}`;
}

export function TimeCardsPage({ session, zone }: { session: Session & { kind: 'location' }; zone: string }) {
  useLanguage();
  const today = localToday(zone);
  const { filter, page, setPage, message, form } = useDayFilter<Filter>(
    session.token,
    { from: today, to: today, pin: '', area: '' },
    { path: (f) => `/api/attendance/daily.csv${query(apiQuery(f))}`, file: 'time-cards.csv' },
  );
  const areas = useLoad(() => allAreas(session.token), [session.token]);
  const list = useLoad(
    () => api<Cards>(session.token, 'GET', `/api/attendance/daily${query({ ...apiQuery(filter), page, limit: LIMIT })}`),
    [filter, page],
  );
  const { day_start_hour: dayStart, attendance_debounce_s: debounce } = session.me;

  return (
    <>
      <h1 tabIndex={-1}>{t('timeCards.title')}</h1>
      <p class="lead">{t('timeCards.lead', { zone, start: String(dayStart).padStart(2, '0'), debounce: String(debounce) })}</p>
      <DayFilters {...form}>
        <PinField draft={form.draft} set={form.set} />
        <label>
          {t('timeCards.area')}
          <select name="area" value={form.draft.area} onChange={form.set('area')}>
            <option value="">{t('timeCards.everyArea')}</option>
            <NamedOptions list={areas.data ?? []} />
          </select>
        </label>
      </DayFilters>
      {message && <Notice kind={message.kind}>{message.text}</Notice>}
      {list.error && <Notice kind="error">{list.error}</Notice>}
      {list.data && (
        <p class="lead" aria-live="polite">
          {t('timeCards.count', { n: list.data.total })}
        </p>
      )}
      {list.data && list.data.data.length > 0 && (
        <Table
          caption={t('timeCards.caption')}
          columns={[
            t('timeCards.day'),
            t('timeCards.pin'),
            t('timeCards.name'),
            t('timeCards.firstIn'),
            t('timeCards.lastOut'),
            t('timeCards.worked'),
            t('timeCards.punches'),
            t('timeCards.note'),
          ]}
        >
          {list.data.data.map((c) => (
            <tr key={`${c.date}:${c.pin}`} data-card={`${c.date}:${c.pin}`}>
              <td>{c.date}</td>
              <td>{c.pin}</td>
              <td>{c.name ?? '—'}</td>
              <td class="first-in">{clock(c.first_in, c.date)}</td>
              <td class="last-out">{clock(c.last_out, c.date)}</td>
              <td class="worked">{hoursAndMinutes(c.worked_minutes)}</td>
              <td>{c.punches}</td>
              <td class="note">{c.incomplete ? t('timeCards.incomplete') : ''}</td>
            </tr>
          ))}
        </Table>
      )}
      <Pager page={list.data} onPage={setPage} label={t('timeCards.title')} />
    </>
  );
}
