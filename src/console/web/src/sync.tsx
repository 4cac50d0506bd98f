/**
 * The location's roster sync (issue #31): the summary of GET /api/sync, and the terminals in one sync
 * state (drift by default) from GET /api/devices?sync_state=…, paged, each with its owed lines and
 * reason and a link to its device page (where the owed PINs are listed). Every `devices/<sn>/sync`
 * event of the stream loads both again, so the page follows the terminals without a reload.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, query, type Session } from './api.js';
import type { Reply, SyncState, SyncSummary } from './api-types.js';
import { t, useLanguage } from './i18n/index.js';
import { BASE } from './router.js';
import { openStream } from './stream.js';
import { owedText, syncLabel, SyncBadge } from './sync-state.js';
import { formatLocal } from './time.js';
import { HeaderRow, Notice, Online, Pager, useLoad } from './ui.js';

const STATES: readonly SyncState[] = ['drift', 'syncing', 'unknown', 'in_sync'];
const LIMIT = 20;

function Summary({ summary, zone }: { summary: SyncSummary; zone: string }) {
  useLanguage();
  return (
    <dl class="facts summary">
      <dt>{t('syncPage.terminals')}</dt>
      <dd>{summary.devices}</dd>
      <dt>{t('sync.in_sync')}</dt>
      <dd data-count="in_sync">{summary.in_sync}</dd>
      <dt>{t('sync.syncing')}</dt>
      <dd data-count="syncing">{summary.syncing}</dd>
      <dt>{t('syncPage.inDrift')}</dt>
      <dd data-count="drift">{summary.drift}</dd>
      <dt>{t('syncPage.unknown')}</dt>
      <dd data-count="unknown">{summary.unknown}</dd>
      <dt>{t('syncPage.revocationsOwed')}</dt>
      <dd data-count="revocations_owed">{summary.revocations_owed}</dd>
      <dt>{t('syncPage.oldestOwed')}</dt>
      <dd>{summary.oldest_owed_at === null ? t('syncPage.none') : formatLocal(summary.oldest_owed_at, zone)}</dd>
    </dl>
  );
}

export function SyncPage({ session, zone }: { session: Session & { kind: 'location' }; zone: string }) {
  useLanguage();
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

  const heading = state === 'drift' ? t('syncPage.driftHeading') : t('syncPage.stateHeading', { state: syncLabel(state).toLowerCase() });
  const [leadBefore, leadAfter] = t('syncPage.lead', { drift: '\u0001' }).split('\u0001');
  return (
    <>
      <h1 tabIndex={-1}>{t('syncPage.title')}</h1>
      <p class="lead">
        {leadBefore}
        <em>{t('sync.drift')}</em>
        {leadAfter}
      </p>
      <section aria-labelledby="summary-h">
        <h2 id="summary-h">{t('syncPage.summary')}</h2>
        {summary.error && <Notice kind="error">{summary.error}</Notice>}
        {summary.data ? <Summary summary={summary.data} zone={zone} /> : !summary.error && <p>{t('syncPage.loading')}</p>}
      </section>
      <section aria-labelledby="list-h">
        <h2 id="list-h">{heading}</h2>
        <div class="filters">
          <label>
            {t('syncPage.state')}
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
        {list.data && list.data.data.length === 0 && <p>{t('syncPage.noneInState')}</p>}
        {list.data && list.data.data.length > 0 && (
          <div class="table-wrap">
            <table aria-labelledby="list-h">
              <thead>
                <HeaderRow
                  columns={[
                    t('syncPage.terminal'),
                    t('syncPage.presence'),
                    t('sync.label'),
                    t('sync.owed'),
                    t('sync.refused'),
                    t('sync.reason'),
                    t('sync.lastConfirmed'),
                  ]}
                />
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
        <Pager page={list.data} onPage={setPage} label={t('syncPage.terminals')} />
      </section>
    </>
  );
}
