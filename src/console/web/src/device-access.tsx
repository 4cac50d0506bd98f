/**
 * A terminal's access: whether it can enforce schedules (`access_control`), the access levels that apply to it (those
 * of its area and those of every terminal), and its doors' settings (GET and PUT /api/devices/{sn}/doors/{n}): how long
 * the lock stays open and the schedule during which the door stays open.
 */
import { useState } from 'preact/hooks';
import { api, type Session } from './api.js';
import type { AccessLevel, Device, Reply, Schedule } from './api-types.js';
import { allLevels } from './access-levels.js';
import { allSchedules } from './schedules.js';
import { errorText, Form, FormActions, Messages, type Msg, NamedOptions, Notice, Table, useLoad } from './ui.js';
import { t, useLanguage } from './i18n/index.js';

type Door = Reply<'/api/devices/{device_serial}/doors', 'get'>['data'][number];
/** The door form as typed: the select's value is a schedule id as a string, NEVER when not kept open. */
type Draft = { seconds: string; schedule: string };
const NEVER = '';

const nameOf = (list: readonly { id: number; name: string }[] | null, id: number) => list?.find((x) => x.id === id)?.name ?? `#${id}`;

/** The levels that give rights on a terminal: its area's and every terminal's. */
export function levelsOn(device: Device, levels: readonly AccessLevel[]): AccessLevel[] {
  return levels.filter((l) => l.area_id === null || l.area_id === device.area?.id);
}

export function DeviceAccess({ session, device }: { session: Session & { kind: 'location' }; device: Device }) {
  useLanguage();
  const sn = device.serial_number;
  const path = `/api/devices/${encodeURIComponent(sn)}/doors`;
  const doors = useLoad(() => api<Reply<'/api/devices/{device_serial}/doors', 'get'>>(session.token, 'GET', path), [sn]);
  const levels = useLoad(() => allLevels(session.token), [session.token]);
  const schedules = useLoad(() => allSchedules(session.token), [session.token]);
  const [editing, setEditing] = useState<Door | null>(null);
  const [message, setMessage] = useState<Msg>(null);
  const [formError, setFormError] = useState<string | null>(null);
  const writable = session.me.token?.scope !== 'read';
  const here = levels.data ? levelsOn(device, levels.data) : null;
  const { schedules: enforces } = device.access_control;

  const save = async (door: number, d: Draft) => {
    const body = { unlock_seconds: Number(d.seconds), normal_open_schedule_id: d.schedule === NEVER ? null : Number(d.schedule) };
    try {
      await api(session.token, 'PUT', `${path}/${door}`, body);
      setEditing(null);
      setFormError(null);
      setMessage({ kind: 'ok', text: t(enforces ? 'deviceAccess.savedSent' : 'deviceAccess.saved', { door: String(door) }) });
      doors.reload();
    } catch (err) {
      setFormError(errorText(err));
    }
  };

  return (
    <section aria-labelledby="access-h">
      <h2 id="access-h">{t('deviceAccess.title')}</h2>
      <p class="access-control" data-schedules={String(enforces)}>
        {enforces ? t('deviceAccess.enforces') : t('deviceAccess.cannot')}
      </p>
      <Messages message={message} errors={[doors.error, levels.error, schedules.error]} />
      <h3>{t('deviceAccess.levels')}</h3>
      {here && here.length === 0 && <p>{t('deviceAccess.noLevels')}</p>}
      {here && here.length > 0 && (
        <Table
          caption={t('deviceAccess.levelsCaption')}
          columns={[t('deviceAccess.name'), t('deviceAccess.schedule'), t('deviceAccess.doors'), t('deviceAccess.givenBy')]}
        >
          {here.map((l) => (
            <tr key={l.id} data-level={l.id}>
              <td>{l.name}</td>
              <td>{nameOf(schedules.data, l.schedule_id)}</td>
              <td>{l.doors.join(', ')}</td>
              <td>{l.area_id === null ? t('deviceAccess.everyTerminal') : t('deviceAccess.itsArea')}</td>
            </tr>
          ))}
        </Table>
      )}
      <h3>{t('deviceAccess.doors')}</h3>
      {editing && (
        <DoorForm
          key={editing.door}
          door={editing}
          schedules={schedules.data ?? []}
          error={formError}
          onCancel={() => {
            setEditing(null);
            setFormError(null);
          }}
          onSave={(d) => void save(editing.door, d)}
        />
      )}
      {doors.data && (
        <Table
          caption={t('deviceAccess.doorsCaption')}
          columns={[
            t('deviceAccess.door'),
            t('deviceAccess.unlock'),
            t('deviceAccess.keptOpen'),
            ...(writable ? [t('deviceAccess.actions')] : []),
          ]}
        >
          {doors.data.data.map((d) => (
            <tr key={d.door} data-door={d.door}>
              <td>{t('deviceAccess.doorN', { door: String(d.door) })}</td>
              <td class="unlock">
                {d.unlock_seconds === null ? t('deviceAccess.default') : t('deviceAccess.seconds', { n: String(d.unlock_seconds) })}
              </td>
              <td class="keep-open">
                {d.normal_open_schedule_id === null ? t('deviceAccess.never') : nameOf(schedules.data, d.normal_open_schedule_id)}
              </td>
              {writable && (
                <td>
                  <button
                    type="button"
                    class="link"
                    aria-label={t('deviceAccess.editDoor', { door: String(d.door) })}
                    onClick={() => setEditing(d)}
                  >
                    {t('deviceAccess.edit')}
                  </button>
                </td>
              )}
            </tr>
          ))}
        </Table>
      )}
    </section>
  );
}

function DoorForm({
  door,
  schedules,
  error,
  onSave,
  onCancel,
}: {
  door: Door;
  schedules: readonly Schedule[];
  error: string | null;
  onSave: (d: Draft) => void;
  onCancel: () => void;
}) {
  useLanguage();
  const [d, setD] = useState<Draft>({
    seconds: String(door.unlock_seconds ?? 5),
    schedule: door.normal_open_schedule_id === null ? NEVER : String(door.normal_open_schedule_id),
  });
  // The door's own schedule is offered even before (or without) the list that holds it.
  const options: { id: number; name: string }[] = [...schedules];
  if (d.schedule !== NEVER && !options.some((s) => String(s.id) === d.schedule))
    options.unshift({ id: Number(d.schedule), name: `#${d.schedule}` });
  return (
    <Form class="panel" aria-labelledby="door-form-h" onSubmit={() => onSave(d)}>
      <h3 id="door-form-h">{t('deviceAccess.doorN', { door: String(door.door) })}</h3>
      <div class="form-grid">
        <label>
          {t('deviceAccess.unlockSeconds')}
          <input
            type="number"
            min={1}
            max={254}
            required
            value={d.seconds}
            onInput={(e) => setD({ ...d, seconds: e.currentTarget.value })}
          />
        </label>
        <label>
          {t('deviceAccess.keptOpenDuring')}
          <select value={d.schedule} onChange={(e) => setD({ ...d, schedule: e.currentTarget.value })}>
            <option value={NEVER}>{t('deviceAccess.never')}</option>
            <NamedOptions list={options} />
          </select>
        </label>
      </div>
      {error && <Notice kind="error">{error}</Notice>}
      <FormActions onCancel={onCancel} />
    </Form>
  );
}
