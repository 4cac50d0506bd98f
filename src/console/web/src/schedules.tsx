/**
 * Schedules: when a person may open, per day of the week and per holiday type up to three intervals (a terminal
 * time zone, numbered 1–50 per location). Schedule 1, "Always", is built in and cannot be changed or deleted; a
 * schedule an access level names cannot be deleted (409 SCHEDULE_IN_USE). The Schedules page (GET, POST, PUT and
 * DELETE /api/schedules); access levels name a schedule (access-levels.tsx).
 */
import { useState } from 'preact/hooks';
import { api, ApiError, query, type Session } from './api.js';
import type { Interval, Reply, Schedule, ScheduleDay, ScheduleDays, ScheduleInput } from './api-types.js';
import { t, useLanguage, type MessageId } from './i18n/index.js';
import { ConfirmRemove, NewRecord, RecordCount, RowActions, useRecordForm, useRecords } from './record-list.js';
import { allPages, errorText, Form, FormActions, HeaderRow, Messages, Notice, Pager, Table } from './ui.js';

const LIMIT = 20;
/** Schedule 1, "Always": every day, all day; the API refuses to change or delete it. */
export const ALWAYS_ID = 1;
/** Intervals a day holds at most (a terminal's time zone row has three per day). */
const SLOTS = 3;

/** Monday first, then the holiday types; a run of days in a summary never crosses from Sunday into the holidays. */
const WEEK: readonly ScheduleDay[] = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
const HOLIDAYS: readonly ScheduleDay[] = ['holiday1', 'holiday2', 'holiday3'];
const ALL_DAYS: readonly ScheduleDay[] = [...WEEK, ...HOLIDAYS];
/** A holiday type's number (holiday1 → 1); null for a day of the week. */
const holidayType = (day: ScheduleDay): number | null => (day.startsWith('holiday') ? Number(day.slice(-1)) : null);
/** A day's short name in the current language (Mon, Holiday 1). */
function short(day: ScheduleDay): string {
  const n = holidayType(day);
  return n === null ? t(`schedules.short.${day}` as MessageId) : t('schedules.short.holiday', { n });
}
/** A day's full name in the current language (Monday, Holiday type 1). */
function long(day: ScheduleDay): string {
  const n = holidayType(day);
  return n === null ? t(`schedules.long.${day}` as MessageId) : t('schedules.long.holiday', { n });
}

/** One interval as typed: both ends empty = no interval. */
type Slot = { start: string; end: string };
type Draft = { name: string; days: Record<ScheduleDay, Slot[]> };

/** Every schedule of the location, "Always" first (at most 50). */
export function allSchedules(token: string): Promise<Schedule[]> {
  return allPages((page, limit) => api<Reply<'/api/schedules', 'get'>>(token, 'GET', `/api/schedules${query({ page, limit })}`));
}

const times = (list: readonly Interval[]) => list.map((i) => `${i.start}–${i.end}`).join(', ');

/**
 * A schedule's days in one line: runs of consecutive days with the same intervals, runs with the same intervals
 * together ("Mon–Fri 08:30–12:00, 13:00–17:30; Sat 09:00–12:00"); days without an interval are left out.
 */
export function weekSummary(days: ScheduleDays): string {
  const runs: { from: ScheduleDay; to: ScheduleDay; text: string }[] = [];
  for (const group of [WEEK, HOLIDAYS])
    group.forEach((day, n) => {
      const text = times(days[day]);
      const last = runs[runs.length - 1];
      if (n > 0 && last && last.text === text) last.to = day;
      else runs.push({ from: day, to: day, text });
    });
  const byTimes = new Map<string, string[]>();
  for (const r of runs) {
    if (r.text === '') continue;
    const to = HOLIDAYS.includes(r.to) ? r.to.slice(-1) : short(r.to);
    byTimes.set(r.text, [...(byTimes.get(r.text) ?? []), r.from === r.to ? short(r.from) : `${short(r.from)}–${to}`]);
  }
  if (byTimes.size === 0) return t('schedules.never');
  return [...byTimes].map(([text, labels]) => `${labels.join(', ')} ${text}`).join('; ');
}

function draftOf(s: Schedule | null): Draft {
  const days = Object.fromEntries(
    ALL_DAYS.map((d) => {
      const list = s?.days[d] ?? [];
      return [d, Array.from({ length: SLOTS }, (_, n) => ({ start: list[n]?.start ?? '', end: list[n]?.end ?? '' }))];
    }),
  ) as Record<ScheduleDay, Slot[]>;
  return { name: s?.name ?? '', days };
}

/** The API's body from a draft, or its first problem in words (an interval needs both ends, the start first). */
function inputOf(d: Draft): ScheduleInput | string {
  const days: ScheduleInput['days'] = {};
  for (const day of ALL_DAYS) {
    const list: Interval[] = [];
    for (const [n, s] of d.days[day].entries()) {
      if (s.start === '' && s.end === '') continue;
      const where = { day: long(day), n: n + 1 };
      if (s.start === '' || s.end === '') return t('schedules.bothEnds', where);
      if (s.start >= s.end) return t('schedules.startFirst', where);
      list.push({ start: s.start, end: s.end });
    }
    if (list.length > 0) days[day] = list;
  }
  return { name: d.name.trim(), days };
}

/** A 409 SCHEDULE_IN_USE said in words: the access levels that name the schedule and what to do about them. */
async function deleteRefusal(token: string, s: Schedule, err: unknown): Promise<string> {
  if (!(err instanceof ApiError && err.code === 'SCHEDULE_IN_USE')) return t('records.notDeleted', { name: s.name, error: errorText(err) });
  const levels = await allPages((page, limit) =>
    api<Reply<'/api/access-levels', 'get'>>(token, 'GET', `/api/access-levels${query({ page, limit })}`),
  ).catch(() => []);
  const names = levels.filter((l) => l.schedule_id === s.id).map((l) => `“${l.name}”`);
  return names.length > 0 ? t('schedules.inUseBy', { name: s.name, levels: names.join(', ') }) : t('schedules.inUse', { name: s.name });
}

export function SchedulesPage({ session }: { session: Session & { kind: 'location' } }) {
  useLanguage();
  const records = useRecords<Schedule>(session, {
    path: '/api/schedules',
    noun: t('schedules.noun'),
    limit: LIMIT,
    refusal: (s, err) => deleteRefusal(session.token, s, err),
    deleted: (s) => t('schedules.deleted', { name: s.name }),
  });
  const { list, writable } = records;
  const form = useRecordForm<Schedule, Draft, ScheduleInput>(session, records, {
    path: '/api/schedules',
    noun: t('schedules.noun'),
    inputOf,
    created: (s) => t('schedules.created', { name: s.name }),
    saved: (s) => t('schedules.saved', { name: s.name }),
  });
  const { editing } = form;

  return (
    <>
      <h1 tabIndex={-1}>{t('schedules.title')}</h1>
      <p class="lead">{t('schedules.lead')}</p>
      {writable && <NewRecord label={t('schedules.new')} onClick={() => form.open(null)} />}
      <Messages message={records.message} errors={[list.error]} />
      {editing && (
        <ScheduleForm
          key={editing.record?.id ?? 'new'}
          initial={editing.record}
          error={form.formError}
          onCancel={form.close}
          onSave={(d) => void form.save(editing.record, d)}
        />
      )}
      <RecordCount page={list.data} count={(n) => t('schedules.count', { n })} />
      {list.data && list.data.data.length > 0 && (
        <Table
          caption={t('schedules.caption')}
          columns={[t('schedules.name'), t('schedules.when'), ...(writable ? [t('schedules.actions')] : [])]}
        >
          {list.data.data.map((s) => (
            <tr key={s.id} data-schedule={s.id}>
              <td>{s.name}</td>
              <td class="when">{weekSummary(s.days)}</td>
              {writable &&
                (s.id === ALWAYS_ID ? (
                  <td class="hint">{t('schedules.builtIn')}</td>
                ) : (
                  <RowActions
                    noun={t('schedules.noun')}
                    name={s.name}
                    editLabel={t('schedules.editLabel', { name: s.name })}
                    deleteLabel={t('schedules.deleteLabel', { name: s.name })}
                    onEdit={() => form.open(s)}
                    onDelete={() => records.setDeleting(s)}
                  />
                ))}
            </tr>
          ))}
        </Table>
      )}
      <Pager page={list.data} onPage={records.setPage} label={t('schedules.caption')} />
      <ConfirmRemove records={records} noun={t('schedules.noun')} title={(name) => t('schedules.confirmDelete', { name })}>
        <p>{t('schedules.deleteEffect')}</p>
      </ConfirmRemove>
    </>
  );
}

/** The schedule form: a name, then a row per day with three intervals (start and end of type time). */
function ScheduleForm({
  initial,
  error,
  onSave,
  onCancel,
}: {
  initial: Schedule | null;
  error: string | null;
  onSave: (d: Draft) => void;
  onCancel: () => void;
}) {
  useLanguage();
  const [d, setD] = useState(() => draftOf(initial));
  const setSlot = (day: ScheduleDay, n: number, end: keyof Slot, value: string) =>
    setD({ ...d, days: { ...d.days, [day]: d.days[day].map((s, i) => (i === n ? { ...s, [end]: value } : s)) } });
  const slotInput = (day: ScheduleDay, n: number, s: Slot, end: keyof Slot) => (
    <input
      type="time"
      value={s[end]}
      aria-label={t(end === 'start' ? 'schedules.start' : 'schedules.end', { day: long(day), n: n + 1 })}
      onInput={(e) => setSlot(day, n, end, e.currentTarget.value)}
    />
  );
  const copyMonday = () =>
    setD({ ...d, days: { ...d.days, ...Object.fromEntries(WEEK.slice(1, 5).map((day) => [day, d.days.mon.map((s) => ({ ...s }))])) } });
  return (
    <Form class="panel" aria-labelledby="schedule-form-h" onSubmit={() => onSave(d)}>
      <h2 id="schedule-form-h">{initial ? t('schedules.edit', { name: initial.name }) : t('schedules.new')}</h2>
      <div class="form-grid">
        <label>
          {t('schedules.name')}
          <input value={d.name} required maxLength={100} onInput={(e) => setD({ ...d, name: e.currentTarget.value })} />
        </label>
      </div>
      <p class="hint" id="schedule-days-hint">
        {t('schedules.hint')}
      </p>
      <div class="actions">
        <button type="button" onClick={copyMonday}>
          {t('schedules.copyMonday')}
        </button>
      </div>
      <div class="table-wrap">
        <table aria-describedby="schedule-days-hint">
          <caption>{t('schedules.intervals')}</caption>
          <thead>
            <HeaderRow columns={[t('schedules.day'), ...Array.from({ length: SLOTS }, (_, n) => t('schedules.interval', { n: n + 1 }))]} />
          </thead>
          <tbody>
            {ALL_DAYS.map((day) => (
              <tr key={day} data-day={day}>
                <th scope="row">{long(day)}</th>
                {d.days[day].map((s, n) => (
                  <td key={n}>
                    {slotInput(day, n, s, 'start')} <span aria-hidden="true">–</span> {slotInput(day, n, s, 'end')}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {error && <Notice kind="error">{error}</Notice>}
      <FormActions onCancel={onCancel} />
    </Form>
  );
}
