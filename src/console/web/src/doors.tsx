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

/** Most events the page keeps on screen (the first page and what arrived since). */
const SHOWN = 100;
const KINDS = [
  ['', 'Every kind'],
  ['alarm', 'Alarms'],
  ['error', 'Errors'],
  ['normal', 'Normal'],
  ['state', 'Door states'],
] as const;

const KIND_TEXT: Readonly<Record<string, string>> = { alarm: 'Alarm', error: 'Error', normal: 'Normal', state: 'State' };

function what(e: DoorEvent): string {
  if (e.type === 'state' && e.state) return `sensor ${e.state.sensor}, relay ${e.state.relay}, alarm ${e.state.alarm}`;
  return e.meaning ?? (e.event === null ? '—' : `code ${e.event}`);
}

export function DoorsPage({ session, zone }: { session: Session & { kind: 'location' }; zone: string }) {
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
      <h1 tabIndex={-1}>Doors and alarms</h1>
      <p class="lead">
        Door and alarm events from the terminals, newest first.{' '}
        <span class="live" role="status">
          {connected ? 'Live: new events appear at the top.' : 'Connecting to live events…'}
        </span>
      </p>
      <div class="filters">
        <label>
          Kind
          <select value={kind} onChange={(e) => setKind(e.currentTarget.value)}>
            {KINDS.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
      </div>
      {list.error && <Notice kind="error">{list.error}</Notice>}
      {rows.length === 0 && !list.loading ? (
        <p>No door events{kind ? ' of this kind' : ''} yet.</p>
      ) : (
        <div class="table-wrap">
          <table>
            <caption class="sr-only">Door and alarm events</caption>
            <thead>
              <HeaderRow columns={['Time', 'Terminal', 'Door', 'Kind', 'What', 'PIN or card']} />
            </thead>
            <tbody>
              {rows.map((e) => (
                <tr key={e.id}>
                  <td>{formatLocal(e.timestamp, zone)}</td>
                  <td>{names.get(e.sn) ?? e.sn}</td>
                  <td>{e.door ?? '—'}</td>
                  <td>
                    <span class={`badge ${e.type === 'alarm' || e.type === 'error' ? 'badge-bad' : 'badge-off'}`}>
                      {KIND_TEXT[e.type] ?? e.type}
                    </span>
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
