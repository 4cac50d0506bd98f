/**
 * Areas: named groups of the location's terminals. A terminal in no area receives every active user; a terminal in
 * an area receives only the users listing that area. The Areas page (GET, POST, PUT and DELETE /api/areas), the
 * device page's area (PATCH /api/devices/{sn} with `area_id`, null = no area) and the user form's areas
 * (POST /api/users with `areas`).
 */
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, query, request, type Session } from './api.js';
import type { Area, AreaRef, Device, Reply } from './api-types.js';
import { errorText, FormActions, HeaderRow, Notice, Pager, TypedConfirm, useLoad } from './ui.js';

const LIMIT = 20;
/** The select's value for "no area" (an area id is never empty). */
const NONE = '';
export const NO_AREA = 'No area (every user)';

type Msg = { kind: 'ok' | 'error'; text: string } | null;

/** Every area of the location (the API pages at 100). */
export async function allAreas(token: string): Promise<Area[]> {
  const out: Area[] = [];
  for (let page = 1; page <= 100; page++) {
    const p = await api<Reply<'/api/areas', 'get'>>(token, 'GET', `/api/areas${query({ page, limit: 100 })}`);
    out.push(...p.data);
    if (!p.has_next) break;
  }
  return out;
}

/** A user's areas by name, in the order of `ids`; an id the list does not (yet) hold shows as `#id`. */
export function areaNames(ids: readonly number[], areas: readonly Area[] | null): string {
  if (ids.length === 0) return '—';
  const byId = new Map((areas ?? []).map((a) => [a.id, a.name]));
  return ids.map((id) => byId.get(id) ?? `#${id}`).join(', ');
}

/** A 409 AREA_IN_USE said in words: what holds the area and what to do about it. */
function deleteRefusal(area: Area, err: unknown): string {
  if (err instanceof ApiError && err.code === 'AREA_IN_USE')
    return (
      `“${area.name}” was not deleted: terminals are still in this area. Move each of them to another area, or to ` +
      `“${NO_AREA}”, on its device page, then delete the area.`
    );
  return `“${area.name}” was not deleted: ${errorText(err)}`;
}

export function AreasPage({ session }: { session: Session & { kind: 'location' } }) {
  const [page, setPage] = useState(1);
  const list = useLoad(() => api<Reply<'/api/areas', 'get'>>(session.token, 'GET', `/api/areas${query({ page, limit: LIMIT })}`), [page]);
  const [name, setName] = useState('');
  const [renaming, setRenaming] = useState<Area | null>(null);
  const [deleting, setDeleting] = useState<Area | null>(null);
  const [message, setMessage] = useState<Msg>(null);
  const writable = session.me.token?.scope !== 'read';

  const done = (text: string) => {
    setMessage({ kind: 'ok', text });
    list.reload();
  };
  const create = async (next: string) => {
    try {
      const a = await api<Area>(session.token, 'POST', '/api/areas', { name: next });
      setName('');
      done(`Area “${a.name}” created.`);
    } catch (err) {
      setMessage({ kind: 'error', text: errorText(err) });
    }
  };
  const rename = async (area: Area, next: string) => {
    try {
      const a = await api<Area>(session.token, 'PUT', `/api/areas/${area.id}`, { name: next });
      setRenaming(null);
      done(`Area “${area.name}” renamed to “${a.name}”.`);
    } catch (err) {
      setMessage({ kind: 'error', text: errorText(err) });
    }
  };
  const remove = async (area: Area) => {
    try {
      await request(session.token, 'DELETE', `/api/areas/${area.id}`);
      done(`Area “${area.name}” deleted.`);
    } catch (err) {
      setMessage({ kind: 'error', text: deleteRefusal(area, err) });
      // The counts the refusal rests on may have changed since the list was loaded.
      list.reload();
    }
  };

  return (
    <>
      <h1 tabIndex={-1}>Areas</h1>
      <p class="lead">
        A terminal in no area receives every active user. A terminal in an area receives only the users given that area (on the Users page);
        choose a terminal's area on its device page.
      </p>
      {writable && (
        <form
          class="filters"
          aria-labelledby="new-area-h"
          onSubmit={(e) => {
            e.preventDefault();
            void create(name.trim());
          }}
        >
          <h2 id="new-area-h" class="inline-h">
            New area
          </h2>
          <label>
            Name
            <input value={name} required maxLength={100} onInput={(e) => setName(e.currentTarget.value)} />
          </label>
          <button type="submit" class="primary" disabled={name.trim() === ''}>
            Create
          </button>
        </form>
      )}
      {message && <Notice kind={message.kind}>{message.text}</Notice>}
      {list.error && <Notice kind="error">{list.error}</Notice>}
      {renaming && <RenameArea area={renaming} onCancel={() => setRenaming(null)} onSave={(next) => void rename(renaming, next)} />}
      {list.data && (
        <p class="lead" aria-live="polite">
          {list.data.total === 1 ? '1 area' : `${list.data.total} areas`}.
        </p>
      )}
      {list.data && list.data.data.length > 0 && (
        <div class="table-wrap">
          <table>
            <caption class="sr-only">Areas</caption>
            <thead>
              <HeaderRow columns={writable ? ['Name', 'Terminals', 'Users', 'Actions'] : ['Name', 'Terminals', 'Users']} />
            </thead>
            <tbody>
              {list.data.data.map((a) => (
                <tr key={a.id} data-area={a.id}>
                  <td>{a.name}</td>
                  <td data-count="devices">{a.devices_count}</td>
                  <td data-count="users">{a.users_count}</td>
                  {writable && (
                    <td class="row-actions">
                      <button type="button" aria-label={`Rename area ${a.name}`} onClick={() => setRenaming(a)}>
                        Rename
                      </button>
                      <button type="button" class="danger" aria-label={`Delete area ${a.name}`} onClick={() => setDeleting(a)}>
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
      <Pager page={list.data} onPage={setPage} label="Areas" />
      <TypedConfirm
        open={deleting !== null}
        title={`Delete area “${deleting?.name ?? ''}”?`}
        word={deleting?.name ?? ''}
        action="Delete"
        onCancel={() => setDeleting(null)}
        onConfirm={() => {
          const a = deleting;
          setDeleting(null);
          if (a) void remove(a);
        }}
      >
        <p>An area with terminals in it cannot be deleted: move its terminals first. Users listing the area lose it from their areas.</p>
      </TypedConfirm>
    </>
  );
}

function RenameArea({ area, onSave, onCancel }: { area: Area; onSave: (name: string) => void; onCancel: () => void }) {
  const [name, setName] = useState(area.name);
  return (
    <form
      class="panel"
      aria-labelledby="rename-area-h"
      onSubmit={(e) => {
        e.preventDefault();
        onSave(name.trim());
      }}
    >
      <h2 id="rename-area-h">Rename area “{area.name}”</h2>
      <div class="form-grid">
        <label>
          Name
          <input value={name} required maxLength={100} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
      </div>
      <FormActions onCancel={onCancel} />
    </form>
  );
}

/**
 * The device page's area: what the terminal receives, and for a writing token a select of the location's areas
 * plus "no area", saved with PATCH /api/devices/{sn}; `onChanged` gets the terminal as the API answered.
 */
export function DeviceArea({
  session,
  device,
  onChanged,
}: {
  session: Session & { kind: 'location' };
  device: Device;
  onChanged: (d: Device) => void;
}) {
  const areas = useLoad(() => allAreas(session.token), [session.token]);
  const current = device.area ? String(device.area.id) : NONE;
  const [choice, setChoice] = useState(current);
  const [message, setMessage] = useState<Msg>(null);
  useEffect(() => setChoice(current), [current]);
  const writable = session.me.token?.scope !== 'read';
  // The terminal's own area is offered even before (or without) the list that holds it.
  const options: AreaRef[] = [...(areas.data ?? [])];
  if (device.area && !options.some((a) => a.id === device.area?.id)) options.unshift(device.area);

  const save = async () => {
    const areaId = choice === NONE ? null : Number(choice);
    try {
      const d = await api<Device>(session.token, 'PATCH', `/api/devices/${encodeURIComponent(device.serial_number)}`, { area_id: areaId });
      setMessage({
        kind: 'ok',
        text: d.area ? `Moved to area “${d.area.name}”.` : 'Moved out of its area: it receives every active user.',
      });
      onChanged(d);
    } catch (err) {
      setMessage({ kind: 'error', text: errorText(err) });
    }
  };

  return (
    <section aria-labelledby="area-h">
      <h2 id="area-h">Area</h2>
      <p class="device-area" data-area={device.area?.id ?? NONE}>
        {device.area ? (
          <>
            In area <strong>{device.area.name}</strong>: it receives only the users given this area.
          </>
        ) : (
          <>
            <strong>No area</strong>: it receives every active user.
          </>
        )}
      </p>
      {writable && (
        <form
          class="filters"
          aria-label="Change the terminal's area"
          onSubmit={(e) => {
            e.preventDefault();
            void save();
          }}
        >
          <label>
            Area
            <select value={choice} onChange={(e) => setChoice(e.currentTarget.value)}>
              <option value={NONE}>{NO_AREA}</option>
              {options.map((a) => (
                <option key={a.id} value={String(a.id)}>
                  {a.name}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" class="primary" disabled={choice === current}>
            Save area
          </button>
        </form>
      )}
      {areas.error && <Notice kind="error">{areas.error}</Notice>}
      {message && <Notice kind={message.kind}>{message.text}</Notice>}
    </section>
  );
}

/** The user form's areas: one checkbox per area of the location; the value is the checked ids, ascending. */
export function AreaChecks({
  areas,
  value,
  onChange,
}: {
  areas: readonly Area[];
  value: readonly number[];
  onChange: (ids: number[]) => void;
}) {
  return (
    <fieldset class="areas">
      <legend>Areas</legend>
      <p class="hint">
        Terminals in a checked area receive this user; terminals in no area receive every active user.
        {areas.length === 0 && ' This location has no areas yet (Areas page).'}
      </p>
      {areas.map((a) => (
        <label key={a.id} class="check">
          <input
            type="checkbox"
            checked={value.includes(a.id)}
            onChange={(e) => onChange(e.currentTarget.checked ? [...value, a.id].sort((x, y) => x - y) : value.filter((id) => id !== a.id))}
          />
          {a.name}
        </label>
      ))}
    </fieldset>
  );
}
