/** The admin view (admin token): locations and tokens (unassigned terminals: unassigned.tsx). */
import { useState } from 'preact/hooks';
import { api } from './api.js';
import type { CreatedLocation, CreatedToken, Location, Scope, Token } from './api-types.js';
import { formatLocal } from './time.js';
import { t, useLanguage } from './i18n/index.js';
import { ConfirmRecord, DangerButton, errorText, Form, FormActions, Messages, type Msg, Notice, Table, useLoad } from './ui.js';

const UTC = 'UTC';
/** The browser's zone list where it has one (the server checks the name either way). */
const ZONES: readonly string[] = (Intl as { supportedValuesOf?: (k: string) => string[] }).supportedValuesOf?.('timeZone') ?? [];

export function LocationsPage({ token }: { token: string }) {
  useLanguage();
  const list = useLoad(() => api<Location[]>(token, 'GET', '/admin/locations'), []);
  const [name, setName] = useState('');
  const [zone, setZone] = useState(Intl.DateTimeFormat().resolvedOptions().timeZone || UTC);
  const [message, setMessage] = useState<Msg>(null);
  const [created, setCreated] = useState<CreatedLocation | null>(null);
  const [editing, setEditing] = useState<Location | null>(null);
  const [disabling, setDisabling] = useState<Location | null>(null);

  const patch = async (id: number, body: Record<string, unknown>, done: string) => {
    try {
      await api(token, 'PATCH', `/admin/locations/${id}`, body);
      setMessage({ kind: 'ok', text: done });
      setEditing(null);
      list.reload();
    } catch (err) {
      setMessage({ kind: 'error', text: errorText(err) });
    }
  };

  return (
    <>
      <h1 tabIndex={-1}>{t('admin.locations')}</h1>
      <datalist id="zones">
        {ZONES.map((z) => (
          <option key={z} value={z} />
        ))}
      </datalist>
      <Form
        class="filters"
        aria-labelledby="new-location-h"
        onSubmit={() => {
          api<CreatedLocation>(token, 'POST', '/admin/locations', { name: name.trim(), timezone: zone.trim() }).then(
            (r) => {
              setCreated(r);
              setName('');
              setMessage(null);
              list.reload();
            },
            (err: unknown) => setMessage({ kind: 'error', text: errorText(err) }),
          );
        }}
      >
        <h2 id="new-location-h" class="inline-h">
          {t('admin.newLocation')}
        </h2>
        <label>
          {t('admin.name')}
          <input value={name} required maxLength={200} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label>
          {t('admin.timeZone')}
          <input value={zone} required list="zones" onInput={(e) => setZone(e.currentTarget.value)} />
        </label>
        <button type="submit" class="primary">
          {t('admin.create')}
        </button>
      </Form>
      {created && (
        <ShownOnce
          title={t('admin.locationCreated', { name: created.location.name, id: String(created.location.id) })}
          token={created.token}
          onDone={() => setCreated(null)}
        />
      )}
      <Messages message={message} errors={[list.error]} />
      {editing && (
        <EditLocation
          location={editing}
          onCancel={() => setEditing(null)}
          onSave={(body) => void patch(editing.id, body, t('admin.locationUpdated', { id: String(editing.id) }))}
        />
      )}
      {list.data && (
        <Table
          caption={t('admin.locations')}
          columns={[
            t('admin.id'),
            t('admin.name'),
            t('admin.timeZone'),
            t('admin.users'),
            t('admin.devices'),
            t('admin.state'),
            t('admin.actions'),
          ]}
        >
          {list.data.map((l) => (
            <tr key={l.id} data-location={l.id}>
              <td>{l.id}</td>
              <td>{l.name}</td>
              <td>{l.timezone}</td>
              <td>{l.users_count}</td>
              <td>{l.devices_count}</td>
              <td>{l.is_active ? t('admin.active') : t('admin.disabled')}</td>
              <td class="row-actions">
                <button type="button" aria-label={t('admin.editLabel', { name: l.name })} onClick={() => setEditing(l)}>
                  {t('admin.edit')}
                </button>
                {l.is_active ? (
                  <DangerButton label={t('admin.disableLabel', { name: l.name })} onClick={() => setDisabling(l)}>
                    {t('admin.disable')}
                  </DangerButton>
                ) : (
                  <button
                    type="button"
                    aria-label={t('admin.enableLabel', { name: l.name })}
                    onClick={() => void patch(l.id, { is_active: true }, t('admin.locationEnabled', { id: String(l.id) }))}
                  >
                    {t('admin.enable')}
                  </button>
                )}
              </td>
            </tr>
          ))}
        </Table>
      )}
      <ConfirmRecord
        pending={disabling}
        title={t('admin.confirmDisable', { name: disabling?.name ?? '' })}
        word={disabling?.name ?? ''}
        action={t('admin.disable')}
        onClose={() => setDisabling(null)}
        onConfirm={(l) => void patch(l.id, { is_active: false }, t('admin.locationDisabled', { id: String(l.id) }))}
      >
        <p>{t('admin.disableEffect')}</p>
      </ConfirmRecord>
    </>
  );
}

function EditLocation({
  location,
  onSave,
  onCancel,
}: {
  location: Location;
  onSave: (body: Record<string, unknown>) => void;
  onCancel: () => void;
}) {
  useLanguage();
  const [name, setName] = useState(location.name);
  const [zone, setZone] = useState(location.timezone);
  return (
    <Form class="panel" aria-labelledby="edit-location-h" onSubmit={() => onSave({ name: name.trim(), timezone: zone.trim() })}>
      <h2 id="edit-location-h">{t('admin.editLocation', { id: String(location.id) })}</h2>
      <div class="form-grid">
        <label>
          {t('admin.name')}
          <input value={name} required maxLength={200} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label>
          {t('admin.timeZone')}
          <input value={zone} required list="zones" onInput={(e) => setZone(e.currentTarget.value)} />
        </label>
      </div>
      <FormActions onCancel={onCancel} />
    </Form>
  );
}

/** A token is shown once: the operator copies it now or issues another later. */
function ShownOnce({ title, token, onDone }: { title: string; token: string; onDone: () => void }) {
  useLanguage();
  const [copied, setCopied] = useState(false);
  return (
    <div class="panel secret" role="status">
      <p>{title}</p>
      <p>
        <label>
          {t('admin.tokenShown')}
          <input class="token" readOnly value={token} onFocus={(e) => e.currentTarget.select()} />
        </label>
      </p>
      <div class="actions">
        <button
          type="button"
          onClick={() =>
            void navigator.clipboard?.writeText(token).then(
              () => setCopied(true),
              () => undefined,
            )
          }
        >
          {copied ? t('admin.copied') : t('admin.copy')}
        </button>
        <button type="button" onClick={onDone}>
          {t('admin.stored')}
        </button>
      </div>
    </div>
  );
}

export function TokensPage({ token }: { token: string }) {
  useLanguage();
  const locations = useLoad(() => api<Location[]>(token, 'GET', '/admin/locations'), []);
  const [locationId, setLocationId] = useState('');
  const selected = locationId || String(locations.data?.[0]?.id ?? '');
  const tokens = useLoad(
    () => (selected ? api<Token[]>(token, 'GET', `/admin/locations/${selected}/tokens`) : Promise.resolve([])),
    [selected],
  );
  const [scope, setScope] = useState<Scope>('operator');
  const [days, setDays] = useState('90');
  const [label, setLabel] = useState('');
  const [issued, setIssued] = useState<string | null>(null);
  const [message, setMessage] = useState<Msg>(null);

  const create = async () => {
    try {
      const r = await api<CreatedToken>(token, 'POST', `/admin/locations/${selected}/tokens`, {
        scope,
        expires_in_days: days ? Number(days) : null,
        label: label.trim() || null,
      });
      setIssued(r.token);
      setMessage(null);
      setLabel('');
      tokens.reload();
    } catch (err) {
      setMessage({ kind: 'error', text: errorText(err) });
    }
  };
  const revoke = async (tok: Token) => {
    try {
      await api(token, 'DELETE', `/admin/tokens/${tok.id}`);
      setMessage({ kind: 'ok', text: t('admin.tokenRevoked', { id: String(tok.id) }) });
      tokens.reload();
    } catch (err) {
      setMessage({ kind: 'error', text: errorText(err) });
    }
  };

  return (
    <>
      <h1 tabIndex={-1}>{t('admin.tokens')}</h1>
      {locations.error && <Notice kind="error">{locations.error}</Notice>}
      <label class="block">
        {t('admin.location')}
        <select value={selected} onChange={(e) => setLocationId(e.currentTarget.value)}>
          {(locations.data ?? []).map((l) => (
            <option key={l.id} value={l.id}>
              {t('admin.locationOption', { name: l.name, id: String(l.id) })}
            </option>
          ))}
        </select>
      </label>
      <Form class="filters" aria-labelledby="new-token-h" onSubmit={() => void create()}>
        <h2 id="new-token-h" class="inline-h">
          {t('admin.newToken')}
        </h2>
        <label>
          {t('admin.scope')}
          <select value={scope} onChange={(e) => setScope(e.currentTarget.value as Scope)}>
            <option value="full">{t('admin.scopeFull')}</option>
            <option value="operator">{t('admin.scopeOperator')}</option>
            <option value="read">{t('admin.scopeRead')}</option>
          </select>
        </label>
        <label>
          {t('admin.expires')}
          <input type="number" min={1} max={3650} value={days} onInput={(e) => setDays(e.currentTarget.value)} />
        </label>
        <label>
          {t('admin.label')}
          <input value={label} maxLength={200} onInput={(e) => setLabel(e.currentTarget.value)} />
        </label>
        <button type="submit" class="primary" disabled={!selected}>
          {t('admin.createToken')}
        </button>
      </Form>
      {issued && <ShownOnce title={t('admin.tokenCreated')} token={issued} onDone={() => setIssued(null)} />}
      <Messages message={message} errors={[tokens.error]} />
      {tokens.data && (
        <Table
          caption={t('admin.tokensCaption')}
          columns={[
            t('admin.id'),
            t('admin.scope'),
            t('admin.label'),
            t('admin.created'),
            t('admin.expiresColumn'),
            t('admin.state'),
            t('admin.actions'),
          ]}
        >
          {tokens.data.map((tok) => (
            <tr key={tok.id} data-token={tok.id}>
              <td>{tok.id}</td>
              <td>{tok.scope}</td>
              <td>{tok.label ?? '—'}</td>
              <td>{formatLocal(tok.created_at, UTC)}</td>
              <td>{tok.expires_at ? formatLocal(tok.expires_at, UTC) : t('time.never')}</td>
              <td>{tok.revoked_at ? t('admin.revoked') : t('admin.valid')}</td>
              <td>
                {!tok.revoked_at && (
                  <DangerButton label={t('admin.revokeLabel', { id: String(tok.id) })} onClick={() => void revoke(tok)}>
                    {t('admin.revoke')}
                  </DangerButton>
                )}
              </td>
            </tr>
          ))}
        </Table>
      )}
      <p class="hint">{t('admin.utc')}</p>
    </>
  );
}
