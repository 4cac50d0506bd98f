/**
 * Areas: named groups of the location's terminals. A terminal in no area receives every active user; a terminal in
 * an area receives only the users listing that area. The Areas page (GET, POST, PUT and DELETE /api/areas), the
 * device page's area (PATCH /api/devices/{sn} with `area_id`, null = no area) and the user form's areas
 * (POST /api/users with `areas`).
 */
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, query, type Session } from './api.js';
import type { Area, AreaRef, Device, Reply } from './api-types.js';
import { t, useLanguage } from './i18n/index.js';
import { ConfirmRemove, RecordCount, RowActions, useRecords } from './record-list.js';
import {
  allPages,
  errorText,
  Form,
  FormActions,
  IdChecks,
  type IdChoice,
  Messages,
  type Msg,
  NamedOptions,
  Notice,
  Pager,
  Table,
  useLoad,
} from './ui.js';

const LIMIT = 20;
/** The select's value for "no area" (an area id is never empty). */
const NONE = '';
/** The select's label for "no area", in the current language. */
export const noAreaLabel = (): string => t('areas.none');

/** Every area of the location (the API pages at 100). */
export function allAreas(token: string): Promise<Area[]> {
  return allPages((page, limit) => api<Reply<'/api/areas', 'get'>>(token, 'GET', `/api/areas${query({ page, limit })}`));
}

/** A user's areas by name, in the order of `ids`; an id the list does not (yet) hold shows as `#id`. */
export function areaNames(ids: readonly number[], areas: readonly Area[] | null): string {
  if (ids.length === 0) return '—';
  const byId = new Map((areas ?? []).map((a) => [a.id, a.name]));
  return ids.map((id) => byId.get(id) ?? `#${id}`).join(', ');
}

/** A 409 AREA_IN_USE said in words: what holds the area and what to do about it. */
function deleteRefusal(area: Area, err: unknown): string {
  if (err instanceof ApiError && err.code === 'AREA_IN_USE') return t('areas.inUse', { name: area.name, none: noAreaLabel() });
  return t('records.notDeleted', { name: area.name, error: errorText(err) });
}

export function AreasPage({ session }: { session: Session & { kind: 'location' } }) {
  useLanguage();
  const records = useRecords<Area>(session, {
    path: '/api/areas',
    noun: t('areas.noun'),
    limit: LIMIT,
    refusal: deleteRefusal,
    deleted: (a) => t('areas.deleted', { name: a.name }),
  });
  const { list, message, setMessage, writable, done } = records;
  const [name, setName] = useState('');
  const [renaming, setRenaming] = useState<Area | null>(null);

  const create = async (next: string) => {
    try {
      const a = await api<Area>(session.token, 'POST', '/api/areas', { name: next });
      setName('');
      done(t('areas.created', { name: a.name }));
    } catch (err) {
      setMessage({ kind: 'error', text: errorText(err) });
    }
  };
  const rename = async (area: Area, next: string) => {
    try {
      const a = await api<Area>(session.token, 'PUT', `/api/areas/${area.id}`, { name: next });
      setRenaming(null);
      done(t('areas.renamed', { from: area.name, to: a.name }));
    } catch (err) {
      setMessage({ kind: 'error', text: errorText(err) });
    }
  };

  return (
    <>
      <h1 tabIndex={-1}>{t('areas.title')}</h1>
      <p class="lead">{t('areas.lead')}</p>
      {writable && (
        <Form class="filters" aria-labelledby="new-area-h" onSubmit={() => void create(name.trim())}>
          <h2 id="new-area-h" class="inline-h">
            {t('areas.new')}
          </h2>
          <label>
            {t('areas.name')}
            <input value={name} required maxLength={100} onInput={(e) => setName(e.currentTarget.value)} />
          </label>
          <button type="submit" class="primary" disabled={name.trim() === ''}>
            {t('areas.create')}
          </button>
        </Form>
      )}
      <Messages message={message} errors={[list.error]} />
      {renaming && <RenameArea area={renaming} onCancel={() => setRenaming(null)} onSave={(next) => void rename(renaming, next)} />}
      <RecordCount page={list.data} count={(n) => t('areas.count', { n })} />
      {list.data && list.data.data.length > 0 && (
        <Table
          caption={t('areas.caption')}
          columns={[t('areas.name'), t('areas.terminals'), t('areas.users'), ...(writable ? [t('areas.actions')] : [])]}
        >
          {list.data.data.map((a) => (
            <tr key={a.id} data-area={a.id}>
              <td>{a.name}</td>
              <td data-count="devices">{a.devices_count}</td>
              <td data-count="users">{a.users_count}</td>
              {writable && (
                <RowActions
                  noun={t('areas.noun')}
                  name={a.name}
                  edit={t('areas.rename')}
                  editLabel={t('areas.renameLabel', { name: a.name })}
                  deleteLabel={t('areas.deleteLabel', { name: a.name })}
                  onEdit={() => setRenaming(a)}
                  onDelete={() => records.setDeleting(a)}
                />
              )}
            </tr>
          ))}
        </Table>
      )}
      <Pager page={list.data} onPage={records.setPage} label={t('areas.caption')} />
      <ConfirmRemove records={records} noun={t('areas.noun')} title={(name) => t('areas.confirmDelete', { name })}>
        <p>{t('areas.deleteEffect')}</p>
      </ConfirmRemove>
    </>
  );
}

function RenameArea({ area, onSave, onCancel }: { area: Area; onSave: (name: string) => void; onCancel: () => void }) {
  useLanguage();
  const [name, setName] = useState(area.name);
  return (
    <Form class="panel" aria-labelledby="rename-area-h" onSubmit={() => onSave(name.trim())}>
      <h2 id="rename-area-h">{t('areas.renameTitle', { name: area.name })}</h2>
      <div class="form-grid">
        <label>
          {t('areas.name')}
          <input value={name} required maxLength={100} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
      </div>
      <FormActions onCancel={onCancel} />
    </Form>
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
  useLanguage();
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
        text: d.area ? t('areas.movedTo', { name: d.area.name }) : t('areas.movedOut'),
      });
      onChanged(d);
    } catch (err) {
      setMessage({ kind: 'error', text: errorText(err) });
    }
  };

  return (
    <section aria-labelledby="area-h">
      <h2 id="area-h">{t('areas.area')}</h2>
      <p class="device-area" data-area={device.area?.id ?? NONE}>
        {device.area ? (
          <>
            {t('areas.inArea')} <strong>{device.area.name}</strong>
            {t('areas.inAreaEffect')}
          </>
        ) : (
          <>
            <strong>{t('areas.noArea')}</strong>
            {t('areas.noAreaEffect')}
          </>
        )}
      </p>
      {writable && (
        <Form class="filters" aria-label={t('areas.change')} onSubmit={() => void save()}>
          <label>
            {t('areas.area')}
            <select value={choice} onChange={(e) => setChoice(e.currentTarget.value)}>
              <option value={NONE}>{noAreaLabel()}</option>
              <NamedOptions list={options} />
            </select>
          </label>
          <button type="submit" class="primary" disabled={choice === current}>
            {t('areas.save')}
          </button>
        </Form>
      )}
      {areas.error && <Notice kind="error">{areas.error}</Notice>}
      {message && <Notice kind={message.kind}>{message.text}</Notice>}
    </section>
  );
}

/** The user form's areas: one checkbox per area of the location; the value is the checked ids, ascending. */
export function AreaChecks({ areas, value, onChange }: { areas: readonly Area[] } & IdChoice) {
  useLanguage();
  const hint = (
    <>
      {t('areas.checksHint')}
      {areas.length === 0 && ` ${t('areas.noneYet')}`}
    </>
  );
  return <IdChecks class="areas" legend={t('areas.caption')} hint={hint} list={areas} value={value} onChange={onChange} />;
}
