/**
 * The location's roster sync (issue #31): the summary of GET /api/sync, and the terminals in one sync
 * state (drift by default) from GET /api/devices?sync_state=…, paged, each with its owed lines and
 * reason and a link to its device page (where the owed PINs are listed). Every `devices/<sn>/sync`
 * event of the stream loads both again, so the page follows the terminals without a reload.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, query, type Session } from './api.js';
import type { Reply, SyncState, SyncSummary } from './api-types.js';
import { BASE } from './router.js';
import { openStream } from './stream.js';
import { owedText, syncLabel, SyncBadge } from './sync-state.js';
import { formatLocal } from './time.js';
import { HeaderRow, Notice, Online, Pager, useLoad } from './ui.js';

const STATES: readonly SyncState[] = ['drift', 'syncing', 'unknown', 'in_sync'];
const LIMIT = 20;

function Summary({ summary, zone }: { summary: SyncSummary; zone: string }) {
  return (
    <dl class="facts summary">
      <dt>Terminals</dt>
      <dd>{summary.devices}</dd>
      <dt>In sync</dt>
      <dd data-count="in_sync">{summary.in_sync}</dd>
      <dt>Syncing</dt>
      <dd data-count="syncing">{summary.syncing}</dd>
      <dt>In drift</dt>
      <dd data-count="drift">{summary.drift}</dd>
      <dt>Unknown</dt>
      <dd data-count="unknown">{summary.unknown}</dd>
      <dt>Revocations owed</dt>
      <dd data-count="revocations_owed">{summary.revocations_owed}</dd>
      <dt>Oldest owed line</dt>
      <dd>{summary.oldest_owed_at === null ? 'none' : formatLocal(summary.oldest_owed_at, zone)}</dd>
    </dl>
  );
}

export function SyncPage({ session, zone }: { session: Session & { kind: 'location' }; zone: string }) {
  const [state, setState] = useState<SyncState>('drift');
  const [page, setPage] = useState(1);
  const [tick, setTick] = useState(0);
  const summary = useLoad(() => api<SyncSummary>(session.token, 'GET', '/api/sync'), [tick]);
  const list = useLoad(
    () => api<Reply<'/api/devices', 'get'>>(session.token, 'GET', `/api/devices${query({ sync_state: state, page, limit: LIMIT })}`),
    [state, page, tick],
  );
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => {
    const close = openStream({
      token: session.token,
      topics: ['devices/+/sync'],
      // A burst of state changes costs one reload.
      onMessage: () => {
        if (timer.current !== undefined) clearTimeout(timer.current);
        timer.current = setTimeout(() => setTick((n) => n + 1), 250);
      },
    });
    return () => {
      close();
      if (timer.current !== undefined) clearTimeout(timer.current);
    };
  }, [session.token]);

  const heading = state === 'drift' ? 'Terminals in drift' : `Terminals: ${syncLabel(state).toLowerCase()}`;
  return (
    <>
      <h1 tabIndex={-1}>Sync</h1>
      <p class="lead">
        Whether each terminal holds the users it should. <em>Drift</em>: the terminal refused a line; BioGate keeps sending it with back-off
        until it is accepted.
      </p>
      <section aria-labelledby="summary-h">
        <h2 id="summary-h">Location summary</h2>
        {summary.error && <Notice kind="error">{summary.error}</Notice>}
        {summary.data ? <Summary summary={summary.data} zone={zone} /> : !summary.error && <p>Loading…</p>}
      </section>
      <section aria-labelledby="list-h">
        <h2 id="list-h">{heading}</h2>
        <div class="filters">
          <label>
            State
            <select
              value={state}
              onChange={(e) => {
                setState(e.currentTarget.value as SyncState);
                setPage(1);
              }}
            >
              {STATES.map((s) => (
                <option key={s} value={s}>
                  {syncLabel(s)}
                </option>
              ))}
            </select>
          </label>
        </div>
        {list.error && <Notice kind="error">{list.error}</Notice>}
        {list.data && list.data.data.length === 0 && <p>No terminal is in this state.</p>}
        {list.data && list.data.data.length > 0 && (
          <div class="table-wrap">
            <table aria-labelledby="list-h">
              <thead>
                <HeaderRow columns={['Terminal', 'Presence', 'Sync', 'Owed', 'Refused', 'Reason', 'Last confirmed']} />
              </thead>
              <tbody>
                {list.data.data.map((d) => (
                  <tr key={d.serial_number} data-sn={d.serial_number}>
                    <td>
                      <a href={`${BASE}/devices/${encodeURIComponent(d.serial_number)}`}>{d.name || d.serial_number}</a>
                      {d.name && d.name !== d.serial_number && <div class="hint">{d.serial_number}</div>}
                    </td>
                    <td>
                      <Online online={d.is_active} />
                    </td>
                    <td>
                      <SyncBadge sync={d.sync} />
                    </td>
                    <td>{d.sync ? owedText(d.sync) : '—'}</td>
                    <td>{d.sync?.refused ?? '—'}</td>
                    <td class="sync-reason">{d.sync?.reason ?? '—'}</td>
                    <td>{formatLocal(d.sync?.last_confirmed_at, zone)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <Pager page={list.data} onPage={setPage} label="Terminals" />
      </section>
    </>
  );
}
