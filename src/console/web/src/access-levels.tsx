/**
 * Access levels: when (a schedule), through which doors (1–4) and on which terminals (an area's, or every terminal
 * of the location) a person may open. A user with levels opens on each terminal through the doors of the levels that
 * apply there, in their schedules (none applies: through no door); a user without any keeps schedule 1 through every
 * door. The Access levels page (GET, POST, PUT and DELETE /api/access-levels) and the user form's levels
 * (POST /api/users with `access_levels`).
 */
import { useState } from 'preact/hooks';
import { api, query, request, type Session } from './api.js';
import type { AccessLevel, AccessLevelInput, Area, Reply, Schedule } from './api-types.js';
import { allAreas } from './areas.js';
import { ALWAYS_ID, allSchedules, weekSummary } from './schedules.js';
import { allPages, errorText, FormActions, HeaderRow, Notice, Pager, TypedConfirm, useLoad } from './ui.js';

const LIMIT = 20;
const DOORS = [1, 2, 3, 4] as const;
/** The area select's value for "every terminal" (an area id is never empty). */
const EVERY = '';
export const EVERY_TERMINAL = 'Every terminal';

type Msg = { kind: 'ok' | 'error'; text: string } | null;
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
  if (d.doors.length === 0) return 'Choose at least one door.';
  return { name: d.name.trim(), schedule_id: Number(d.schedule), doors: d.doors, area_id: d.area === EVERY ? null : Number(d.area) };
}

export function AccessLevelsPage({ session }: { session: Session & { kind: 'location' } }) {
  const [page, setPage] = useState(1);
  const list = useLoad(
    () => api<Reply<'/api/access-levels', 'get'>>(session.token, 'GET', `/api/access-levels${query({ page, limit: LIMIT })}`),
    [page],
  );
  const schedules = useLoad(() => allSchedules(session.token), [session.token]);
  const areas = useLoad(() => allAreas(session.token), [session.token]);
  const [editing, setEditing] = useState<{ level: AccessLevel | null } | null>(null);
  const [formError, setFormError] = useState<string | null>(null);
  const [deleting, setDeleting] = useState<AccessLevel | null>(null);
  const [message, setMessage] = useState<Msg>(null);
  const writable = session.me.token?.scope !== 'read';

  const open = (level: AccessLevel | null) => {
    setFormError(null);
    setMessage(null);
    setEditing({ level });
  };
  const done = (text: string) => {
    setMessage({ kind: 'ok', text });
    list.reload();
  };
  const save = async (target: AccessLevel | null, draft: Draft) => {
    const body = inputOf(draft);
    if (typeof body === 'string') {
      setFormError(body);
      return;
    }
    try {
      const l = target
        ? await api<AccessLevel>(session.token, 'PUT', `/api/access-levels/${target.id}`, body)
        : await api<AccessLevel>(session.token, 'POST', '/api/access-levels', body);
      setEditing(null);
      done(target ? `Access level “${l.name}” saved.` : `Access level “${l.name}” created.`);
    } catch (err) {
      setFormError(errorText(err));
    }
  };
  const remove = async (l: AccessLevel) => {
    try {
      await request(session.token, 'DELETE', `/api/access-levels/${l.id}`);
      done(`Access level “${l.name}” deleted.`);
    } catch (err) {
      setMessage({ kind: 'error', text: `“${l.name}” was not deleted: ${errorText(err)}` });
      list.reload();
    }
  };

  return (
    <>
      <h1 tabIndex={-1}>Access levels</h1>
      <p class="lead">
        An access level opens doors on a schedule, on the terminals of one area or on every terminal. Give users their levels on the Users
        page; a user without any level opens at any time through every door.
      </p>
      {writable && (
        <div class="filters">
          <button type="button" onClick={() => open(null)}>
            New access level
          </button>
        </div>
      )}
      {message && <Notice kind={message.kind}>{message.text}</Notice>}
      {list.error && <Notice kind="error">{list.error}</Notice>}
      {schedules.error && <Notice kind="error">{schedules.error}</Notice>}
      {areas.error && <Notice kind="error">{areas.error}</Notice>}
      {editing && (
        <LevelForm
          key={editing.level?.id ?? 'new'}
          initial={editing.level}
          schedules={schedules.data ?? []}
          areas={areas.data ?? []}
          error={formError}
          onCancel={() => setEditing(null)}
          onSave={(d) => void save(editing.level, d)}
        />
      )}
      {list.data && (
        <p class="lead" aria-live="polite">
          {list.data.total === 1 ? '1 access level' : `${list.data.total} access levels`}.
        </p>
      )}
      {list.data && list.data.data.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption class="sr-only">Access levels</caption>
            <thead>
              <HeaderRow columns={['Name', 'Schedule', 'Doors', 'Area', ...(writable ? ['Actions'] : [])]} />
            </thead>
            <tbody>
              {list.data.data.map((l) => (
                <tr key={l.id} data-level={l.id}>
                  <td>{l.name}</td>
                  <td class="schedule">{nameOf(schedules.data, l.schedule_id)}</td>
                  <td class="doors">{l.doors.join(', ')}</td>
                  <td class="area">{l.area_id === null ? EVERY_TERMINAL : nameOf(areas.data, l.area_id)}</td>
                  {writable && (
                    <td class="row-actions">
                      <button type="button" aria-label={`Edit access level ${l.name}`} onClick={() => open(l)}>
                        Edit
                      </button>
                      <button type="button" class="danger" aria-label={`Delete access level ${l.name}`} onClick={() => setDeleting(l)}>
                        Delete
                      </button>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <Pager page={list.data} onPage={setPage} label="Access levels" />
      <TypedConfirm
        open={deleting !== null}
        title={`Delete access level “${deleting?.name ?? ''}”?`}
        word={deleting?.name ?? ''}
        action="Delete"
        onCancel={() => setDeleting(null)}
        onConfirm={() => {
          const l = deleting;
          setDeleting(null);
          if (l) void remove(l);
        }}
      >
        <p>
          Users given this level lose it and are synced again. A user left without any level opens at any time through every door
          (“Always”).
        </p>
      </TypedConfirm>
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
    <form
      class="panel"
      aria-labelledby="level-form-h"
      onSubmit={(e) => {
        e.preventDefault();
        onSave(d);
      }}
    >
      <h2 id="level-form-h">{initial ? `Edit access level “${initial.name}”` : 'New access level'}</h2>
      <div class="form-grid">
        <label>
          Name
          <input value={d.name} required maxLength={100} onInput={(e) => setD({ ...d, name: e.currentTarget.value })} />
        </label>
        <label>
          Schedule
          <select
            value={d.schedule}
            aria-describedby="level-schedule-when"
            onChange={(e) => setD({ ...d, schedule: e.currentTarget.value })}
          >
            {scheduleOptions.map((s) => (
              <option key={s.id} value={String(s.id)}>
                {s.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Area
          <select value={d.area} onChange={(e) => setD({ ...d, area: e.currentTarget.value })}>
            <option value={EVERY}>{EVERY_TERMINAL}</option>
            {areaOptions.map((a) => (
              <option key={a.id} value={String(a.id)}>
                {a.name}
              </option>
            ))}
          </select>
        </label>
      </div>
      <p class="hint" id="level-schedule-when">
        {chosen ? `${chosen.name}: ${weekSummary(chosen.days)}` : ''}
      </p>
      <fieldset class="doors">
        <legend>Doors</legend>
        {DOORS.map((n) => (
          <label key={n} class="check">
            <input
              type="checkbox"
              checked={d.doors.includes(n)}
              onChange={(e) =>
                setD({ ...d, doors: e.currentTarget.checked ? [...d.doors, n].sort((x, y) => x - y) : d.doors.filter((x) => x !== n) })
              }
            />
            Door {n}
          </label>
        ))}
      </fieldset>
      {error && <Notice kind="error">{error}</Notice>}
      <FormActions onCancel={onCancel} />
    </form>
  );
}

/** The user form's access levels: one checkbox per level of the location; the value is the checked ids, ascending. */
export function LevelChecks({
  levels,
  value,
  onChange,
}: {
  levels: readonly AccessLevel[];
  value: readonly number[];
  onChange: (ids: number[]) => void;
}) {
  return (
    <fieldset class="levels">
      <legend>Access levels</legend>
      <p class="hint">
        Without a level the user opens at any time through every door. With levels, a terminal opens for the user through the doors of the
        levels that apply to it, in their schedules, and through no door where none applies.
        {levels.length === 0 && ' This location has no access levels yet (Access levels page).'}
      </p>
      {levels.map((l) => (
        <label key={l.id} class="check">
          <input
            type="checkbox"
            checked={value.includes(l.id)}
            onChange={(e) => onChange(e.currentTarget.checked ? [...value, l.id].sort((x, y) => x - y) : value.filter((id) => id !== l.id))}
          />
          {l.name}
        </label>
      ))}
    </fieldset>
  );
}
