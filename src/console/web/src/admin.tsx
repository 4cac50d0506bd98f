/** The admin view (admin token): locations and tokens (unassigned terminals: unassigned.tsx). */
import { useState } from 'preact/hooks';
import { api } from './api.js';
import type { CreatedLocation, CreatedToken, Location, Scope, Token } from './api-types.js';
import { formatLocal } from './time.js';
import { ConfirmNamed } from './record-list.js';
import { DangerButton, errorText, Form, FormActions, Messages, type Msg, Notice, Table, useLoad } from './ui.js';

const UTC = 'UTC';
/** The browser's zone list where it has one (the server checks the name either way). */
const ZONES: readonly string[] = (Intl as { supportedValuesOf?: (k: string) => string[] }).supportedValuesOf?.('timeZone') ?? [];

export function LocationsPage({ token }: { token: string }) {
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
      <h1 tabIndex={-1}>Locations</h1>
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
          New location
        </h2>
        <label>
          Name
          <input value={name} required maxLength={200} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label>
          Time zone
          <input value={zone} required list="zones" onInput={(e) => setZone(e.currentTarget.value)} />
        </label>
        <button type="submit" class="primary">
          Create
        </button>
      </Form>
      {created && (
        <ShownOnce
          title={`Location “${created.location.name}” created (id ${created.location.id}). Its first token:`}
          token={created.token}
          onDone={() => setCreated(null)}
        />
      )}
      <Messages message={message} errors={[list.error]} />
      {editing && (
        <EditLocation
          location={editing}
          onCancel={() => setEditing(null)}
          onSave={(body) => void patch(editing.id, body, `Location ${editing.id} updated.`)}
        />
      )}
      {list.data && (
        <Table caption="Locations" columns={['Id', 'Name', 'Time zone', 'Users', 'Devices', 'State', 'Actions']}>
          {list.data.map((l) => (
            <tr key={l.id} data-location={l.id}>
              <td>{l.id}</td>
              <td>{l.name}</td>
              <td>{l.timezone}</td>
              <td>{l.users_count}</td>
              <td>{l.devices_count}</td>
              <td>{l.is_active ? 'active' : 'disabled'}</td>
              <td class="row-actions">
                <button type="button" aria-label={`Edit location ${l.name}`} onClick={() => setEditing(l)}>
                  Edit
                </button>
                {l.is_active ? (
                  <DangerButton label={`Disable location ${l.name}`} onClick={() => setDisabling(l)}>
                    Disable
                  </DangerButton>
                ) : (
                  <button
                    type="button"
                    aria-label={`Enable location ${l.name}`}
                    onClick={() => void patch(l.id, { is_active: true }, `Location ${l.id} enabled.`)}
                  >
                    Enable
                  </button>
                )}
              </td>
            </tr>
          ))}
        </Table>
      )}
      <ConfirmNamed
        pending={disabling}
        noun="location"
        action="Disable"
        onClose={() => setDisabling(null)}
        onConfirm={(l) => void patch(l.id, { is_active: false }, `Location ${l.id} disabled.`)}
      >
        <p>Its tokens get 403 until it is enabled again. Terminals keep working.</p>
      </ConfirmNamed>
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
  const [name, setName] = useState(location.name);
  const [zone, setZone] = useState(location.timezone);
  return (
    <Form class="panel" aria-labelledby="edit-location-h" onSubmit={() => onSave({ name: name.trim(), timezone: zone.trim() })}>
      <h2 id="edit-location-h">Edit location {location.id}</h2>
      <div class="form-grid">
        <label>
          Name
          <input value={name} required maxLength={200} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label>
          Time zone
          <input value={zone} required list="zones" onInput={(e) => setZone(e.currentTarget.value)} />
        </label>
      </div>
      <FormActions onCancel={onCancel} />
    </Form>
  );
}

/** A token is shown once: the operator copies it now or issues another later. */
function ShownOnce({ title, token, onDone }: { title: string; token: string; onDone: () => void }) {
  const [copied, setCopied] = useState(false);
  return (
    <div class="panel secret" role="status">
      <p>{title}</p>
      <p>
        <label>
          Token (shown only now)
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
          {copied ? 'Copied' : 'Copy'}
        </button>
        <button type="button" onClick={onDone}>
          I have stored it
        </button>
      </div>
    </div>
  );
}

export function TokensPage({ token }: { token: string }) {
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
  const revoke = async (t: Token) => {
    try {
      await api(token, 'DELETE', `/admin/tokens/${t.id}`);
      setMessage({ kind: 'ok', text: `Token ${t.id} revoked.` });
      tokens.reload();
    } catch (err) {
      setMessage({ kind: 'error', text: errorText(err) });
    }
  };

  return (
    <>
      <h1 tabIndex={-1}>Tokens</h1>
      {locations.error && <Notice kind="error">{locations.error}</Notice>}
      <label class="block">
        Location
        <select value={selected} onChange={(e) => setLocationId(e.currentTarget.value)}>
          {(locations.data ?? []).map((l) => (
            <option key={l.id} value={l.id}>
              {l.name} (id {l.id})
            </option>
          ))}
        </select>
      </label>
      <Form class="filters" aria-labelledby="new-token-h" onSubmit={() => void create()}>
        <h2 id="new-token-h" class="inline-h">
          New token
        </h2>
        <label>
          Scope
          <select value={scope} onChange={(e) => setScope(e.currentTarget.value as Scope)}>
            <option value="full">full: everything</option>
            <option value="operator">operator: no destructive presets</option>
            <option value="read">read: GET only</option>
          </select>
        </label>
        <label>
          Expires after (days, empty = never)
          <input type="number" min={1} max={3650} value={days} onInput={(e) => setDays(e.currentTarget.value)} />
        </label>
        <label>
          Label
          <input value={label} maxLength={200} onInput={(e) => setLabel(e.currentTarget.value)} />
        </label>
        <button type="submit" class="primary" disabled={!selected}>
          Create token
        </button>
      </Form>
      {issued && <ShownOnce title="Token created." token={issued} onDone={() => setIssued(null)} />}
      <Messages message={message} errors={[tokens.error]} />
      {tokens.data && (
        <Table caption="Tokens of the location" columns={['Id', 'Scope', 'Label', 'Created', 'Expires', 'State', 'Actions']}>
          {tokens.data.map((t) => (
            <tr key={t.id} data-token={t.id}>
              <td>{t.id}</td>
              <td>{t.scope}</td>
              <td>{t.label ?? '—'}</td>
              <td>{formatLocal(t.created_at, UTC)}</td>
              <td>{t.expires_at ? formatLocal(t.expires_at, UTC) : 'never'}</td>
              <td>{t.revoked_at ? 'revoked' : 'valid'}</td>
              <td>
                {!t.revoked_at && (
                  <DangerButton label={`Revoke token ${t.id}`} onClick={() => void revoke(t)}>
                    Revoke
                  </DangerButton>
                )}
              </td>
            </tr>
          ))}
        </Table>
      )}
      <p class="hint">Times in UTC.</p>
    </>
  );
}
