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
import { t, useLanguage } from './i18n/index.js';
import { errorText, Notice } from './ui.js';

/** The text either side of a message's one `{placeholder}` (where markup goes): `around((v) => t('id', { menu: v }))`. */
function around(format: (mark: string) => string): [string, string] {
  const [before = '', after = ''] = format('\u0001').split('\u0001');
  return [before, after];
}

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
  useLanguage();
  const [sn, setSn] = useState('');
  const [name, setName] = useState('');
  const [commKey, setCommKey] = useState('');
  const [message, setMessage] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null);
  const full = me.token.scope === 'full';
  const required = me.device_connection.comm_key_required;
  const server = serverFor(window.location, me.device_connection.port);
  const [openBefore, openAfter] = around((menu) => t('addDevice.open', { menu }));
  return (
    <details class="panel">
      <summary>{t('addDevice.title')}</summary>
      <ol class="guide">
        <li>
          {openBefore}
          <strong>COMM. → Cloud Server Setting</strong>
          {openAfter}
          <dl class="facts settings" aria-label={t('addDevice.settings')}>
            <dt>{t('addDevice.address')}</dt>
            <dd data-setting="address">{server.address}</dd>
            <dt>{t('addDevice.port')}</dt>
            <dd data-setting="port">{server.port}</dd>
            <dt>{t('addDevice.https')}</dt>
            <dd data-setting="https">{server.https ? t('addDevice.on') : t('addDevice.off')}</dd>
            <dt>{t('addDevice.commKey')}</dt>
            <dd data-setting="comm-key">
              {commKey || (!required ? t('addDevice.noKey') : full ? t('addDevice.setBelow') : t('addDevice.fullSets'))}
            </dd>
          </dl>
        </li>
        <li>
          {t('addDevice.assignStep')}
          {required && !full && <Notice kind="info">{t('addDevice.needsKey')}</Notice>}
          <form
            class="filters"
            aria-label={t('addDevice.title')}
            onSubmit={(e) => {
              e.preventDefault();
              const serial = sn.trim();
              const body = { sn: serial, ...(name.trim() ? { name: name.trim() } : {}), ...(commKey ? { comm_key: commKey } : {}) };
              api(token, 'POST', '/api/devices', body).then(
                () => {
                  setMessage({
                    kind: 'ok',
                    text: commKey
                      ? t('addDevice.assignedKey', { serial, address: server.address, port: String(server.port), key: commKey })
                      : t('addDevice.assigned', { serial, address: server.address, port: String(server.port) }),
                  });
                  setSn('');
                  setName('');
                },
                (err: unknown) => setMessage({ kind: 'error', text: errorText(err) }),
              );
            }}
          >
            <label>
              {t('addDevice.serial')}
              <input value={sn} required maxLength={64} pattern="[A-Za-z0-9_\-]+" onInput={(e) => setSn(e.currentTarget.value)} />
            </label>
            <label>
              {t('addDevice.name')}
              <input value={name} maxLength={100} onInput={(e) => setName(e.currentTarget.value)} />
            </label>
            {full && (
              <label>
                {t('addDevice.commKey')}
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
                {t('addDevice.generate')}
              </button>
            )}
            <button type="submit" class="primary">
              {t('addDevice.assign')}
            </button>
          </form>
          {full && (
            <p id="comm-key-help" class="hint">
              {t('addDevice.keyHelp')}
            </p>
          )}
        </li>
      </ol>
      {message && <Notice kind={message.kind}>{message.text}</Notice>}
    </details>
  );
}
