/**
 * Doors and alarms: the location's door events (GET /api/events: rtlog and rtstate of Security PUSH terminals), newest
 * first, with the terminal's name and what each code means; new events arrive live through the stream (`events/+`)
 * and are put on top, an alarm marked as one. A filter by kind narrows both.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, query, type Session } from './api.js';
import type { DoorEvent, Page } from './api-types.js';
import { useDeviceNames } from './names.js';
import { openStream } from './stream.js';
import { formatLocal } from './time.js';
import { HeaderRow, Notice, useLoad } from './ui.js';
import { t, useLanguage } from './i18n/index.js';

/** Most events the page keeps on screen (the first page and what arrived since). */
const SHOWN = 100;
/** The kind filter's choices, in the current language. */
const kinds = () =>
  [
    ['', t('doors.everyKind')],
    ['alarm', t('doors.alarms')],
    ['error', t('doors.errors')],
    ['normal', t('doors.normals')],
    ['state', t('doors.states')],
  ] as const;

/** An event's kind in words; a kind the console does not know as it is. */
function kindText(type: string): string {
  switch (type) {
    case 'alarm':
      return t('doors.alarm');
    case 'error':
      return t('doors.error');
    case 'normal':
      return t('doors.normal');
    case 'state':
      return t('doors.state');
    default:
      return type;
  }
}

function what(e: DoorEvent): string {
  if (e.type === 'state' && e.state)
    return t('doors.stateWhat', { sensor: String(e.state.sensor), relay: String(e.state.relay), alarm: String(e.state.alarm) });
  return e.meaning ?? (e.event === null ? '—' : t('doors.code', { code: String(e.event) }));
}

export function DoorsPage({ session, zone }: { session: Session & { kind: 'location' }; zone: string }) {
  useLanguage();
  const [kind, setKind] = useState('');
  const [live, setLive] = useState<DoorEvent[]>([]);
  const [connected, setConnected] = useState(false);
  const list = useLoad(
    () => api<Page<DoorEvent>>(session.token, 'GET', `/api/events${query({ type: kind || undefined, limit: 50 })}`),
    [kind],
  );
  const names = useDeviceNames(session.token);
  useEffect(() => {
    setLive([]);
    return openStream({
      token: session.token,
      topics: ['events/+'],
      onState: (s) => setConnected(s === 'live'),
      onMessage: (m) => {
        const e = m.payload as DoorEvent | null;
        if (!e || (kind && e.type !== kind)) return;
        setLive((old) => [e, ...old.filter((o) => o.id !== e.id)].slice(0, SHOWN));
      },
    });
  }, [session.token, kind]);

  const seen = new Set(live.map((e) => e.id));
  // The kind applies to what is on screen at once, also to a list still loaded for the previous kind.
  const rows = [...live, ...(list.data?.data ?? []).filter((e) => !seen.has(e.id))].filter((e) => !kind || e.type === kind).slice(0, SHOWN);

  return (
    <>
      <h1 tabIndex={-1}>{t('doors.title')}</h1>
      <p class="lead">
        {t('doors.lead')}{' '}
        <span class="live" role="status">
          {connected ? t('doors.live') : t('doors.connecting')}
        </span>
      </p>
      <div class="filters">
        <label>
          {t('doors.kind')}
          <select value={kind} onChange={(e) => setKind(e.currentTarget.value)}>
            {kinds().map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
      </div>
      {list.error && <Notice kind="error">{list.error}</Notice>}
      {rows.length === 0 && !list.loading ? (
        <p>{kind ? t('doors.noneOfKind') : t('doors.none')}</p>
      ) : (
        <div class="table-wrap">
          <table>
            <caption class="sr-only">{t('doors.caption')}</caption>
            <thead>
              <HeaderRow
                columns={[t('doors.time'), t('doors.terminal'), t('doors.door'), t('doors.kind'), t('doors.what'), t('doors.who')]}
              />
            </thead>
            <tbody>
              {rows.map((e) => (
                <tr key={e.id}>
                  <td>{formatLocal(e.timestamp, zone)}</td>
                  <td>{names.get(e.sn) ?? e.sn}</td>
                  <td>{e.door ?? '—'}</td>
                  <td>
                    <span class={`badge ${e.type === 'alarm' || e.type === 'error' ? 'badge-bad' : 'badge-off'}`}>{kindText(e.type)}</span>
                  </td>
                  <td>{what(e)}</td>
                  <td>{e.pin ?? e.card_no ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
