/**
 * "Add a terminal": what to enter on the terminal to point it here (server address, port, HTTPS, comm key), then its
 * assignment to the location (POST /api/devices); the grid shows it through the stream once it connects.
 *
 * The address and port are the ones this page was loaded from, unless the gateway listens for terminals on a port of
 * their own (`device_connection.port` of GET /api/me, BIOGATE_DEVICE_PORT: plain HTTP). A comm key is set only with a
 * full token (the API refuses it to others) and is required where `device_connection.comm_key_required` says so.
 */
import { useState } from 'preact/hooks';
import { api } from './api.js';
import type { Me } from './api-types.js';
import { errorText, Notice } from './ui.js';

/** What the terminal's Cloud Server (ADMS) settings need, from where this page came from and the gateway's settings. */
export function serverFor(page: Pick<Location, 'hostname' | 'port' | 'protocol'>, devicePort: number | null) {
  const https = devicePort === null && page.protocol === 'https:';
  const port = devicePort ?? (page.port ? Number(page.port) : https ? 443 : 80);
  return { address: page.hostname, port, https };
}

/** Six random digits: what a terminal's comm key field takes (0–999999). */
function newCommKey(): string {
  const [n = 0] = crypto.getRandomValues(new Uint32Array(1));
  return String(n % 1_000_000).padStart(6, '0');
}

export function AddDevice({ token, me }: { token: string; me: Me }) {
  const [sn, setSn] = useState('');
  const [name, setName] = useState('');
  const [commKey, setCommKey] = useState('');
  const [message, setMessage] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null);
  const full = me.token.scope === 'full';
  const required = me.device_connection.comm_key_required;
  const server = serverFor(window.location, me.device_connection.port);
  return (
    <details class="panel">
      <summary>Add a terminal</summary>
      <ol class="guide">
        <li>
          On the terminal, open <strong>COMM. → Cloud Server Setting</strong> (ADMS) and enter:
          <dl class="facts settings" aria-label="Terminal settings">
            <dt>Server address</dt>
            <dd data-setting="address">{server.address}</dd>
            <dt>Server port</dt>
            <dd data-setting="port">{server.port}</dd>
            <dt>HTTPS</dt>
            <dd data-setting="https">{server.https ? 'On' : 'Off'}</dd>
            <dt>Comm key</dt>
            <dd data-setting="comm-key">
              {commKey || (!required ? 'none' : full ? 'required: set one below' : 'required: a full token sets it')}
            </dd>
          </dl>
        </li>
        <li>
          Assign its serial number (System Info → Device Info on the terminal) to this location. Until then the terminal is listed under
          “Unassigned” and gets no users.
          {required && !full && (
            <Notice kind="info">Terminals here need a comm key, which only a full token can set: ask whoever holds one.</Notice>
          )}
          <form
            class="filters"
            aria-label="Add a terminal"
            onSubmit={(e) => {
              e.preventDefault();
              const serial = sn.trim();
              const body = { sn: serial, ...(name.trim() ? { name: name.trim() } : {}), ...(commKey ? { comm_key: commKey } : {}) };
              api(token, 'POST', '/api/devices', body).then(
                () => {
                  setMessage({
                    kind: 'ok',
                    text:
                      `${serial} assigned: it is synchronised as soon as it connects to ${server.address}:${server.port}` +
                      (commKey ? ` with comm key ${commKey}.` : '.'),
                  });
                  setSn('');
                  setName('');
                },
                (err: unknown) => setMessage({ kind: 'error', text: errorText(err) }),
              );
            }}
          >
            <label>
              Serial number
              <input value={sn} required maxLength={64} pattern="[A-Za-z0-9_\-]+" onInput={(e) => setSn(e.currentTarget.value)} />
            </label>
            <label>
              Name
              <input value={name} maxLength={100} onInput={(e) => setName(e.currentTarget.value)} />
            </label>
            {full && (
              <label>
                Comm key
                <input
                  value={commKey}
                  inputMode="numeric"
                  pattern="[0-9]{1,6}"
                  maxLength={6}
                  required={required}
                  aria-describedby="comm-key-help"
                  onInput={(e) => setCommKey(e.currentTarget.value.trim())}
                />
              </label>
            )}
            {full && (
              <button type="button" onClick={() => setCommKey(newCommKey())}>
                Generate a comm key
              </button>
            )}
            <button type="submit" class="primary">
              Assign
            </button>
          </form>
          {full && (
            <p id="comm-key-help" class="hint">
              A comm key (up to six digits, entered on the terminal under COMM. → Comm Key) lets only that terminal speak for its serial
              number.
            </p>
          )}
        </li>
      </ol>
      {message && <Notice kind={message.kind}>{message.text}</Notice>}
    </details>
  );
}
