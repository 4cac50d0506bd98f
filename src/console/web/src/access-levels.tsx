/**
 * Access levels: when (a schedule), through which doors (1–4) and on which terminals (an area's, or every terminal
 * of the location) a person may open. A user with levels opens on each terminal through the doors of the levels that
 * apply there, in their schedules (none applies: through no door); a user without any keeps schedule 1 through every
 * door. The Access levels page (GET, POST, PUT and DELETE /api/access-levels) and the user form's levels
 * (POST /api/users with `access_levels`).
 */
import { useState } from 'preact/hooks';
import { api, query, type Session } from './api.js';
import type { AccessLevel, AccessLevelInput, Area, Reply, Schedule } from './api-types.js';
import { allAreas } from './areas.js';
import { ALWAYS_ID, allSchedules, weekSummary } from './schedules.js';
import { ConfirmRemove, NewRecord, RowActions, useRecordForm, useRecords } from './record-list.js';
import { allPages, Form, FormActions, IdChecks, type IdChoice, Messages, NamedOptions, Notice, Pager, Table, useLoad } from './ui.js';
import { t, useLanguage } from './i18n/index.js';

const LIMIT = 20;
const DOORS = [1, 2, 3, 4] as const;
/** The area select's value for "every terminal" (an area id is never empty). */
const EVERY = '';
/** A level's terminals when it has no area, in the current language. */
const everyTerminal = (): string => t('levels.everyTerminal');

/** The form as typed: the selects' values are ids as strings. */
type Draft = { name: string; schedule: string; doors: number[]; area: string };

/** Every access level of the location. */
export function allLevels(token: string): Promise<AccessLevel[]> {
  return allPages((page, limit) => api<Reply<'/api/access-levels', 'get'>>(token, 'GET', `/api/access-levels${query({ page, limit })}`));
}

/** A user's levels by name, in the order of `ids`; an id the list does not (yet) hold shows as `#id`. */
export function levelNames(ids: readonly number[], levels: readonly AccessLevel[] | null): string {
  if (ids.length === 0) return '—';
  const byId = new Map((levels ?? []).map((l) => [l.id, l.name]));
  return ids.map((id) => byId.get(id) ?? `#${id}`).join(', ');
}

const nameOf = (list: readonly { id: number; name: string }[] | null, id: number) => list?.find((x) => x.id === id)?.name ?? `#${id}`;

/** The API's body from a draft, or its problem in words. */
function inputOf(d: Draft): AccessLevelInput | string {
  if (d.doors.length === 0) return t('levels.doorsNeeded');
  return { name: d.name.trim(), schedule_id: Number(d.schedule), doors: d.doors, area_id: d.area === EVERY ? null : Number(d.area) };
}

export function AccessLevelsPage({ session }: { session: Session & { kind: 'location' } }) {
  useLanguage();
  const records = useRecords<AccessLevel>(session, {
    path: '/api/access-levels',
    noun: t('levels.noun'),
    limit: LIMIT,
    deleted: (l) => t('levels.deleted', { name: l.name }),
  });
  const { list, writable } = records;
  const form = useRecordForm<AccessLevel, Draft, AccessLevelInput>(session, records, {
    path: '/api/access-levels',
    noun: t('levels.noun'),
    inputOf,
    created: (l) => t('levels.created', { name: l.name }),
    saved: (l) => t('levels.saved', { name: l.name }),
  });
  const { editing } = form;
  const schedules = useLoad(() => allSchedules(session.token), [session.token]);
  const areas = useLoad(() => allAreas(session.token), [session.token]);

  return (
    <>
      <h1 tabIndex={-1}>{t('levels.title')}</h1>
      <p class="lead">{t('levels.lead')}</p>
      {writable && <NewRecord label={t('levels.new')} onClick={() => form.open(null)} />}
      <Messages message={records.message} errors={[list.error, schedules.error, areas.error]} />
      {editing && (
        <LevelForm
          key={editing.record?.id ?? 'new'}
          initial={editing.record}
          schedules={schedules.data ?? []}
          areas={areas.data ?? []}
          error={form.formError}
          onCancel={form.close}
          onSave={(d) => void form.save(editing.record, d)}
        />
      )}
      {list.data && (
        <p class="lead" aria-live="polite">
          {t('levels.count', { n: list.data.total })}
        </p>
      )}
      {list.data && list.data.data.length > 0 && (
        <Table
          caption={t('levels.title')}
          columns={[
            t('levels.name'),
            t('levels.schedule'),
            t('levels.doors'),
            t('levels.area'),
            ...(writable ? [t('levels.actions')] : []),
          ]}
        >
          {list.data.data.map((l) => (
            <tr key={l.id} data-level={l.id}>
              <td>{l.name}</td>
              <td class="schedule">{nameOf(schedules.data, l.schedule_id)}</td>
              <td class="doors">{l.doors.join(', ')}</td>
              <td class="area">{l.area_id === null ? everyTerminal() : nameOf(areas.data, l.area_id)}</td>
              {writable && (
                <RowActions
                  noun={t('levels.nounLower')}
                  name={l.name}
                  editLabel={t('levels.editLabel', { name: l.name })}
                  deleteLabel={t('levels.deleteLabel', { name: l.name })}
                  onEdit={() => form.open(l)}
                  onDelete={() => records.setDeleting(l)}
                />
              )}
            </tr>
          ))}
        </Table>
      )}
      <Pager page={list.data} onPage={records.setPage} label={t('levels.title')} />
      <ConfirmRemove records={records} noun={t('levels.nounLower')} title={(name) => t('levels.confirmDelete', { name })}>
        <p>{t('levels.removeEffect')}</p>
      </ConfirmRemove>
    </>
  );
}

function LevelForm({
  initial,
  schedules,
  areas,
  error,
  onSave,
  onCancel,
}: {
  initial: AccessLevel | null;
  schedules: readonly Schedule[];
  areas: readonly Area[];
  error: string | null;
  onSave: (d: Draft) => void;
  onCancel: () => void;
}) {
  useLanguage();
  const [d, setD] = useState<Draft>(() => {
    const area = initial?.area_id ?? null;
    return {
      name: initial?.name ?? '',
      schedule: String(initial?.schedule_id ?? ALWAYS_ID),
      doors: [...(initial?.doors ?? [])],
      area: area === null ? EVERY : String(area),
    };
  });
  // The level's own schedule and area are offered even before (or without) the lists that hold them.
  const scheduleOptions: { id: number; name: string }[] = [...schedules];
  if (!scheduleOptions.some((s) => String(s.id) === d.schedule))
    scheduleOptions.unshift({ id: Number(d.schedule), name: `#${d.schedule}` });
  const areaOptions: { id: number; name: string }[] = [...areas];
  if (d.area !== EVERY && !areaOptions.some((a) => String(a.id) === d.area))
    areaOptions.unshift({ id: Number(d.area), name: `#${d.area}` });
  const chosen = schedules.find((s) => String(s.id) === d.schedule);
  return (
    <Form class="panel" aria-labelledby="level-form-h" onSubmit={() => onSave(d)}>
      <h2 id="level-form-h">{initial ? t('levels.edit', { name: initial.name }) : t('levels.new')}</h2>
      <div class="form-grid">
        <label>
          {t('levels.name')}
          <input value={d.name} required maxLength={100} onInput={(e) => setD({ ...d, name: e.currentTarget.value })} />
        </label>
        <label>
          {t('levels.schedule')}
          <select
            value={d.schedule}
            aria-describedby="level-schedule-when"
            onChange={(e) => setD({ ...d, schedule: e.currentTarget.value })}
          >
            <NamedOptions list={scheduleOptions} />
          </select>
        </label>
        <label>
          {t('levels.area')}
          <select value={d.area} onChange={(e) => setD({ ...d, area: e.currentTarget.value })}>
            <option value={EVERY}>{everyTerminal()}</option>
            <NamedOptions list={areaOptions} />
          </select>
        </label>
      </div>
      <p class="hint" id="level-schedule-when">
        {chosen ? `${chosen.name}: ${weekSummary(chosen.days)}` : ''}
      </p>
      <fieldset class="doors">
        <legend>{t('levels.doors')}</legend>
        {DOORS.map((n) => (
          <label key={n} class="check">
            <input
              type="checkbox"
              checked={d.doors.includes(n)}
              onChange={(e) =>
                setD({ ...d, doors: e.currentTarget.checked ? [...d.doors, n].sort((x, y) => x - y) : d.doors.filter((x) => x !== n) })
              }
            />
            {t('levels.door', { n })}
          </label>
        ))}
      </fieldset>
      {error && <Notice kind="error">{error}</Notice>}
      <FormActions onCancel={onCancel} />
    </Form>
  );
}

/** The user form's access levels: one checkbox per level of the location; the value is the checked ids, ascending. */
export function LevelChecks({ levels, value, onChange }: { levels: readonly AccessLevel[] } & IdChoice) {
  useLanguage();
  const hint = (
    <>
      {t('levels.hint')}
      {levels.length === 0 && ` ${t('levels.noLevels')}`}
    </>
  );
  return <IdChecks class="levels" legend={t('levels.title')} hint={hint} list={levels} value={value} onChange={onChange} />;
}
