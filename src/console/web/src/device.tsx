/** One terminal: status, area, access (levels, doors), roster sync (state and owed PINs), options, recent commands (live), its last exchanges, preset buttons and a form for any preset. */
import { useEffect, useState } from 'preact/hooks';
import { api, type Session } from './api.js';
import type { Command, Device, DeviceSync } from './api-types.js';
import { DeviceArea } from './areas.js';
import { DeviceAccess } from './device-access.js';
import { DeviceExchanges } from './device-exchanges.js';
import { CommandForm } from './command-form.js';
import { CommandTable, useLiveCommands } from './commands.js';
import { authText, firmware, mergeState, model } from './devices.js';
import { presetsFor, type Preset } from './presets.js';
import { BASE, navigate } from './router.js';
import { openStream } from './stream.js';
import { SyncSection } from './sync-detail.js';
import { SyncBadge } from './sync-state.js';
import { formatLocal } from './time.js';
import { errorText, HeaderRow, Notice, Online, Pager, TypedConfirm, useLoad } from './ui.js';
import { t, useLanguage } from './i18n/index.js';

export function DevicePage({ session, zone, sn }: { session: Session & { kind: 'location' }; zone: string; sn: string }) {
  useLanguage();
  const path = `/api/devices/${encodeURIComponent(sn)}`;
  const device = useLoad(() => api<Device>(session.token, 'GET', path), [sn]);
  const [page, setPage] = useState(1);
  const commands = useLiveCommands(session, { sn }, page);
  const [message, setMessage] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null);
  const [confirming, setConfirming] = useState<Preset | null>(null);
  const [unassigning, setUnassigning] = useState(false);
  const scope = session.me.token?.scope ?? 'full';
  // The terminal's own topics keep the status current while the page is open.
  const [live, setLive] = useState<{ device: Device | null; online: boolean | null; sync?: DeviceSync }>({ device: null, online: null });
  useEffect(() => {
    setLive({ device: null, online: null });
    return openStream({
      token: session.token,
      topics: [`devices/${sn}/+`],
      onMessage: (m) => {
        if (m.topic === `devices/${sn}/availability`) setLive((l) => ({ ...l, online: m.payload === 'online' }));
        else if (m.topic === `devices/${sn}/sync` && m.payload) setLive((l) => ({ ...l, sync: m.payload as DeviceSync }));
        else if (m.topic === `devices/${sn}/state` && m.payload)
          setLive((l) => ({ ...l, device: mergeState(l.device ?? undefined, m.payload as Device) }));
      },
    });
  }, [session.token, sn]);
  const base = live.device ?? device.data;
  const d = base ? { ...base, is_active: live.online ?? base.is_active } : null;
  // A state event carries no sync: the stream's `devices/<sn>/sync`, else what GET /api/devices/{sn} said.
  const sync = live.sync ?? device.data?.sync;

  const queue = async (p: Preset) => {
    setConfirming(null);
    try {
      const c = await api<Command>(session.token, 'POST', `${path}/command`, { command: p.id, ...(p.params ? { params: p.params } : {}) });
      setMessage({ kind: 'ok', text: t('device.queued', { label: p.label, id: c.id, status: t(`status.${c.status}`) }) });
      setPage(1);
    } catch (err) {
      setMessage({ kind: 'error', text: `${p.label}: ${errorText(err)}` });
    }
  };
  const presets = presetsFor(scope);

  return (
    <>
      <p class="crumbs">
        <a href={`${BASE}/devices`}>{t('devices.title')}</a> › {sn}
      </p>
      <h1 tabIndex={-1}>{d ? d.name || d.serial_number : sn}</h1>
      {device.error && <Notice kind="error">{device.error}</Notice>}
      {d && (
        <section aria-labelledby="status-h">
          <h2 id="status-h">{t('device.status')}</h2>
          <Online online={d.is_active} /> <SyncBadge sync={sync} />
          <dl class="facts">
            <dt>{t('device.serial')}</dt>
            <dd>{d.serial_number}</dd>
            <dt>{t('device.lastSeen')}</dt>
            <dd>{formatLocal(d.last_seen, zone)}</dd>
            <dt>{t('device.registered')}</dt>
            <dd>{formatLocal(d.registered_at, zone)}</dd>
            <dt>{t('device.protocol')}</dt>
            <dd>{d.version ?? t('device.protocolUnknown')}</dd>
            <dt>{t('device.model')}</dt>
            <dd>{model(d)}</dd>
            <dt>{t('device.firmware')}</dt>
            <dd>{firmware(d)}</dd>
            <dt>{t('device.auth')}</dt>
            <dd>{authText(d.auth)}</dd>
          </dl>
        </section>
      )}
      {d && (
        <DeviceArea
          session={session}
          device={d}
          onChanged={(next) => setLive((l) => ({ ...l, device: mergeState(l.device ?? device.data ?? undefined, next) }))}
        />
      )}
      {d && <DeviceAccess session={session} device={d} />}
      {d && <SyncSection session={session} zone={zone} sn={sn} live={sync} />}
      {d && presets.length > 0 && (
        <section aria-labelledby="actions-h">
          <h2 id="actions-h">{t('device.actions')}</h2>
          {message && <Notice kind={message.kind}>{message.text}</Notice>}
          <div class="buttons">
            {presets.map((p) => {
              const version = d.version_override ?? d.version;
              const unsupported = version !== null && !p.versions.includes(version);
              return (
                <button
                  type="button"
                  key={p.id}
                  class={p.risky ? 'danger' : ''}
                  disabled={unsupported}
                  title={unsupported ? t('device.notOn', { version }) : undefined}
                  onClick={() => (p.risky ? setConfirming(p) : void queue(p))}
                >
                  {p.label}
                </button>
              );
            })}
          </div>
          {scope === 'full' && (
            <p>
              <button type="button" class="link danger" onClick={() => setUnassigning(true)}>
                {t('device.remove')}
              </button>
            </p>
          )}
        </section>
      )}
      {d && scope !== 'read' && (
        <CommandForm session={session} sn={sn} version={d.version_override ?? d.version} onQueued={() => setPage(1)} />
      )}
      <TypedConfirm
        open={confirming !== null}
        title={t('device.confirmPreset', { label: confirming?.label ?? '', sn })}
        word={sn}
        action={confirming?.label ?? t('confirm.default')}
        onCancel={() => setConfirming(null)}
        onConfirm={() => confirming && void queue(confirming)}
      >
        <p>{t('device.erases')}</p>
      </TypedConfirm>
      <TypedConfirm
        open={unassigning}
        title={t('device.confirmRemove', { sn })}
        word={sn}
        action={t('device.removeAction')}
        onCancel={() => setUnassigning(false)}
        onConfirm={() => {
          setUnassigning(false);
          api(session.token, 'DELETE', path).then(
            () => navigate('/devices'),
            (err: unknown) => setMessage({ kind: 'error', text: errorText(err) }),
          );
        }}
      >
        <p>{t('device.removeEffect')}</p>
      </TypedConfirm>
      <section aria-labelledby="commands-h">
        <h2 id="commands-h">{t('device.recent')}</h2>
        {commands.error && <Notice kind="error">{commands.error}</Notice>}
        <CommandTable page={commands.data} zone={zone} showSn={false} />
        <Pager page={commands.data} onPage={setPage} label={t('commands.title')} />
      </section>
      <DeviceExchanges session={session} zone={zone} sn={sn} />
      {d?.options && (
        <section aria-labelledby="options-h">
          <h2 id="options-h">{t('device.options')}</h2>
          <div class="table-wrap">
            <table>
              <thead>
                <HeaderRow columns={[t('device.option'), t('device.value')]} />
              </thead>
              <tbody>
                {Object.entries(d.options)
                  .sort(([a], [b]) => a.localeCompare(b))
                  .map(([k, v]) => (
                    <tr key={k}>
                      <td>{k}</td>
                      <td>{v}</td>
                    </tr>
                  ))}
              </tbody>
            </table>
          </div>
        </section>
      )}
    </>
  );
}
