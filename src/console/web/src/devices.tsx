/** The location's terminals as a live grid: REST for the first picture, /api/stream for every change after it. */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, query, type Session } from './api.js';
import type { Device, DeviceSync, Reply } from './api-types.js';
import { BASE } from './router.js';
import { openStream, type StreamState } from './stream.js';
import { ago, formatLocal } from './time.js';
import { errorText, Notice, Online } from './ui.js';
import { AddDevice } from './add-device.js';
import { allDevices } from './names.js';
import { DeviceBulk, SelectBox, useSelection } from './bulk.js';
import { SyncFacts, syncTopicSn } from './sync-state.js';
import { t, useLanguage } from './i18n/index.js';

export const model = (d: Device): string => d.options?.['~DeviceName'] ?? d.options?.['DeviceName'] ?? '—';
export const firmware = (d: Device): string => d.options?.['FirmVer'] ?? d.options?.['FWVersion'] ?? '—';
/** How a terminal authenticates, in words (an auth this console does not know is shown as sent). */
export const authText = (auth: Device['auth']): string =>
  auth === 'registration' || auth === 'comm_key' || auth === 'serial_only' ? t(`auth.${auth}`) : auth;

/** The live-updates status line of a page that follows /api/stream. */
export const liveText = (stream: StreamState): string =>
  stream === 'live' ? t('live.on') : stream === 'connecting' ? t('live.connecting') : t('live.lost');

/**
 * A state event replaces the record, except presence: `devices/<sn>/availability` decides online,
 * and a state written before the terminal's presence was stored (presence is written behind) must
 * not turn a live terminal back to offline or forget when it was last seen. A state event carries no
 * `sync` (that is `devices/<sn>/sync`), so the record keeps the one it had.
 */
export function mergeState(old: Device | undefined, next: Device): Device {
  if (!old) return next;
  const lastSeen =
    [old.last_seen, next.last_seen]
      .filter((v): v is string => v !== null)
      .sort()
      .at(-1) ?? null;
  const sync = next.sync ?? old.sync;
  return { ...next, is_active: old.is_active, last_seen: lastSeen, ...(sync ? { sync } : {}) };
}

const pendingCount = async (token: string, sn: string) =>
  (await api<Reply<'/api/commands', 'get'>>(token, 'GET', `/api/commands${query({ sn, status: 'pending', limit: 1 })}`)).total;

export function DevicesPage({ session, zone }: { session: Session & { kind: 'location' }; zone: string }) {
  useLanguage();
  const [devices, setDevices] = useState<Map<string, Device>>(new Map());
  const scope = session.me.token.scope;
  const writable = scope !== 'read';
  const selected = useSelection<string>();
  const [pending, setPending] = useState<Map<string, number>>(new Map());
  // `devices/<sn>/sync` events, newer than the list's `sync` (a retained one is the current state).
  const [syncs, setSyncs] = useState<Map<string, DeviceSync>>(new Map());
  const [error, setError] = useState<string | null>(null);
  const [stream, setStream] = useState<StreamState>('connecting');
  const [now, setNow] = useState(Date.now());
  const recount = useRef(new Map<string, ReturnType<typeof setTimeout>>());

  useEffect(() => {
    let live = true;
    const count = (sn: string) => {
      const t = recount.current.get(sn);
      if (t) clearTimeout(t);
      // A burst of command events for one terminal costs one count request.
      recount.current.set(
        sn,
        setTimeout(
          () =>
            void pendingCount(session.token, sn).then(
              (n) => live && setPending((m) => new Map(m).set(sn, n)),
              () => undefined,
            ),
          250,
        ),
      );
    };
    allDevices(session.token).then(
      (list) => {
        if (!live) return;
        setDevices((m) => {
          const next = new Map(m);
          for (const d of list) if (!next.has(d.serial_number)) next.set(d.serial_number, d);
          return next;
        });
        list.forEach((d) => count(d.serial_number));
      },
      (err: unknown) => live && setError(errorText(err)),
    );
    const close = openStream({
      token: session.token,
      topics: ['devices/#', 'commands/#'],
      onState: (s) => live && setStream(s),
      onMessage: (m) => {
        const parts = m.topic?.split('/') ?? [];
        const syncSn = syncTopicSn(m.topic);
        if (syncSn !== null) {
          setSyncs((prev) => {
            const next = new Map(prev);
            if (m.payload === null) next.delete(syncSn);
            else next.set(syncSn, m.payload as DeviceSync);
            return next;
          });
        } else if (parts[0] === 'devices' && parts[2] === 'state') {
          const sn = parts[1] as string;
          setDevices((prev) => {
            const next = new Map(prev);
            if (m.payload === null) next.delete(sn);
            else next.set(sn, mergeState(prev.get(sn), m.payload as Device));
            return next;
          });
        } else if (parts[0] === 'devices' && parts[2] === 'availability') {
          const sn = parts[1] as string;
          setDevices((prev) => {
            const d = prev.get(sn);
            return d ? new Map(prev).set(sn, { ...d, is_active: m.payload === 'online' }) : prev;
          });
        } else if (parts[0] === 'commands') {
          const sn = (m.payload as { sn?: string | null } | null)?.sn;
          if (sn) count(sn);
        }
      },
    });
    const clock = setInterval(() => setNow(Date.now()), 5000);
    return () => {
      live = false;
      close();
      clearInterval(clock);
      recount.current.forEach(clearTimeout);
    };
  }, [session.token]);

  const list = useMemo(() => [...devices.values()].sort((a, b) => a.serial_number.localeCompare(b.serial_number)), [devices]);
  const online = list.filter((d) => d.is_active).length;
  const drift = list.filter((d) => (syncs.get(d.serial_number) ?? d.sync)?.state === 'drift').length;
  return (
    <>
      <h1 tabIndex={-1}>{t('devices.title')}</h1>
      <p class="lead">
        {t('devices.lead', { n: list.length, online })}
        {drift > 0 && (
          <>
            , <a href={`${BASE}/sync`}>{t('devices.drift', { n: drift })}</a>
          </>
        )}
        .{' '}
        <span class={`live live-${stream}`} role="status">
          {liveText(stream)}
        </span>
      </p>
      {error && <Notice kind="error">{error}</Notice>}
      {list.length === 0 && !error && <p>{t('devices.none')}</p>}
      {writable && <AddDevice token={session.token} me={session.me} />}
      {writable && list.length > 0 && <DeviceBulk token={session.token} scope={scope} devices={list} selection={selected} />}
      <ul class="grid" aria-label={t('devices.grid')}>
        {list.map((d) => (
          <li key={d.serial_number} class={`card ${d.is_active ? 'card-on' : ''}`} data-sn={d.serial_number}>
            {writable && (
              <SelectBox selection={selected} value={d.serial_number} label={t('devices.select', { name: d.name || d.serial_number })} />
            )}
            <h2>
              <a href={`${BASE}/devices/${encodeURIComponent(d.serial_number)}`}>{d.name || d.serial_number}</a>
            </h2>
            <Online online={d.is_active} />
            <dl>
              <dt>{t('device.serial')}</dt>
              <dd>{d.serial_number}</dd>
              <dt>{t('device.lastSeen')}</dt>
              <dd title={formatLocal(d.last_seen, zone)}>{ago(d.last_seen, now, zone)}</dd>
              <dt>{t('device.protocol')}</dt>
              <dd>{d.version ?? t('device.protocolUnknown')}</dd>
              <dt>{t('device.model')}</dt>
              <dd>{model(d)}</dd>
              <dt>{t('device.firmware')}</dt>
              <dd>{firmware(d)}</dd>
              <dt>{t('device.auth')}</dt>
              <dd>{authText(d.auth)}</dd>
              <dt>{t('device.pending')}</dt>
              <dd class="pending">{pending.get(d.serial_number) ?? '…'}</dd>
              <SyncFacts sync={syncs.get(d.serial_number) ?? d.sync} zone={zone} />
            </dl>
          </li>
        ))}
      </ul>
    </>
  );
}
