/**
 * The location at a glance (issue #38 item 7): terminals online, punches today by hour (a chart), open alerts, roster
 * sync, and the latest alarms. Live: terminal presence from the retained `devices/+/availability` topics; punches,
 * door events, sync and alerts make the figures load again (at most once a second).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, type Session } from './api.js';
import type { Device, DoorEvent, Page, Reply, SyncSummary } from './api-types.js';
import { HourlyChart } from './hourly-chart.js';
import { t } from './i18n/index.js';
import { allDevices, useDeviceNames } from './names.js';
import { BASE } from './router.js';
import { openStream } from './stream.js';
import { formatLocal } from './time.js';
import { Notice, useLoad } from './ui.js';

type Hourly = Reply<'/api/attendance/hourly', 'get'>;
type Rule = Reply<'/api/alerts', 'get'>[number];

/** How long after a live event the figures are loaded again (events in a burst make one reload). */
const SETTLE_MS = 1_000;

export function DashboardPage({ session, zone }: { session: Session & { kind: 'location' }; zone: string }) {
  const token = session.token;
  const [tick, setTick] = useState(0);
  const [connected, setConnected] = useState(false);
  const [devices, setDevices] = useState<readonly Device[] | null>(null);
  const [online, setOnline] = useState<ReadonlyMap<string, boolean>>(new Map());
  const pending = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const hourly = useLoad(() => api<Hourly>(token, 'GET', '/api/attendance/hourly'), [token, tick]);
  const sync = useLoad(() => api<SyncSummary>(token, 'GET', '/api/sync'), [token, tick]);
  const alerts = useLoad(() => api<Rule[]>(token, 'GET', '/api/alerts'), [token, tick]);
  const alarms = useLoad(() => api<Page<DoorEvent>>(token, 'GET', '/api/events?type=alarm&limit=5'), [token, tick]);
  const names = useDeviceNames(token);

  useEffect(() => {
    let live = true;
    allDevices(token).then(
      (list) => live && setDevices(list),
      () => live && setDevices([]),
    );
    const close = openStream({
      token,
      topics: ['devices/+/availability', 'attendance', 'events/+', 'devices/+/sync', 'alerts/+'],
      onState: (state) => setConnected(state === 'live'),
      onMessage: (m) => {
        const parts = m.topic?.split('/') ?? [];
        if (parts[0] === 'devices' && parts[2] === 'availability') {
          setOnline((old) => new Map(old).set(parts[1] as string, m.payload === 'online'));
          return;
        }
        if (m.retained) return;
        clearTimeout(pending.current);
        pending.current = setTimeout(() => setTick((n) => n + 1), SETTLE_MS);
      },
    });
    return () => {
      live = false;
      close();
      clearTimeout(pending.current);
    };
  }, [token]);

  const total = devices?.length ?? 0;
  const up = (devices ?? []).filter((d) => online.get(d.serial_number) ?? d.is_active).length;
  const punches = hourly.data?.hours.reduce((n, h) => n + h.count, 0);
  const open = (alerts.data ?? []).reduce((n, r) => n + r.incidents.length, 0);
  const errors = [hourly.error, sync.error, alerts.error, alarms.error].filter((e): e is string => e !== null);

  return (
    <>
      <h1 tabIndex={-1}>{t('dashboard.title')}</h1>
      <p class="lead">
        {t('dashboard.lead', { location: session.me.name, zone })}{' '}
        <span class="live" role="status">
          {connected ? t('dashboard.live') : t('dashboard.connecting')}
        </span>
      </p>
      {errors.map((e) => (
        <Notice key={e} kind="error">
          {e}
        </Notice>
      ))}
      <dl class="tiles" aria-label={t('dashboard.glance')}>
        <div>
          <dt>{t('dashboard.online')}</dt>
          <dd data-tile="online">{devices === null ? '…' : t('dashboard.onlineOf', { up, total })}</dd>
        </div>
        <div>
          <dt>{t('dashboard.punches')}</dt>
          <dd data-tile="punches">{punches ?? '…'}</dd>
        </div>
        <div>
          <dt>{t('dashboard.alerts')}</dt>
          <dd data-tile="alerts">{alerts.data ? open : '…'}</dd>
        </div>
        <div>
          <dt>{t('dashboard.sync')}</dt>
          <dd data-tile="sync">
            {sync.data ? (
              <a href={`${BASE}/sync`}>
                {t('dashboard.inSync', { n: sync.data.in_sync })}
                {sync.data.drift > 0 && `, ${t('dashboard.drift', { n: sync.data.drift })}`}
              </a>
            ) : (
              '…'
            )}
          </dd>
        </div>
      </dl>
      <h2>{t('dashboard.byHour')}</h2>
      {hourly.data && <HourlyChart hours={hourly.data.hours} />}
      <h2>{t('dashboard.alarms')}</h2>
      {alarms.data && alarms.data.data.length === 0 && <p>{t('dashboard.noAlarm')}</p>}
      {alarms.data && alarms.data.data.length > 0 && (
        <ul class="alarms">
          {alarms.data.data.map((e) => (
            <li key={e.id}>
              {t('dashboard.alarmAt', {
                time: formatLocal(e.timestamp, zone),
                what: e.meaning ?? `code ${e.event ?? '?'}`,
                terminal: names.get(e.sn) ?? e.sn,
              })}
              {e.door !== null && `, ${t('dashboard.door', { door: e.door })}`}
            </li>
          ))}
        </ul>
      )}
      <p>
        <a href={`${BASE}/doors`}>{t('dashboard.allDoors')}</a>
      </p>
    </>
  );
}
