/**
 * The device page's roster sync section: the state (badge, owed lines, refusals, reason, times) and the
 * owed PINs of GET /api/devices/{sn}/sync: `missing` (owed upserts), `extra` (owed revocations) and
 * `refused` (with the terminal's return code). The API pages the three lists together (page and limit
 * apply to each), so one pager turns them all.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, query, type Session } from './api.js';
import type { Command, DeviceSync, OwedPin, Page, SyncDetail } from './api-types.js';
import { AuditControl } from './audit.js';
import { openStream } from './stream.js';
import { SyncFacts } from './sync-state.js';
import { formatLocal } from './time.js';
import { HeaderRow, Notice, Pager, useLoad } from './ui.js';
import { t, useLanguage } from './i18n/index.js';

const LIMIT = 20;

function PinTable({ id, caption, page, zone, codes }: { id: string; caption: string; page: Page<OwedPin>; zone: string; codes: boolean }) {
  useLanguage();
  return (
    <section aria-labelledby={id} class="owed">
      <h3 id={id}>{t('syncDetail.count', { caption, total: String(page.total) })}</h3>
      {page.data.length === 0 ? (
        <p>{t('syncDetail.none')}</p>
      ) : (
        <div class="table-wrap">
          <table aria-labelledby={id}>
            <thead>
              <HeaderRow
                columns={
                  codes ? [t('syncDetail.pin'), t('syncDetail.since'), t('syncDetail.code')] : [t('syncDetail.pin'), t('syncDetail.since')]
                }
              />
            </thead>
            <tbody>
              {page.data.map((p) => (
                <tr key={p.pin} data-pin={p.pin}>
                  <td>{p.pin}</td>
                  <td>{formatLocal(p.since, zone)}</td>
                  {codes && <td>{p.code ?? '—'}</td>}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/** The list with the most pages drives the shared pager. */
const longest = (d: SyncDetail): Page<OwedPin> => [d.missing, d.extra, d.refused].reduce((a, b) => (b.total_pages > a.total_pages ? b : a));

/** Roster commands of a terminal: the audit's query and the user lines (repairs among them). */
const ROSTER_COMMANDS: ReadonlySet<string> = new Set(['load-users', 'sync-users']);
const BURST_MS = 300;

const later = (a: string | null, b: string | null): string | null => (a === null ? b : b === null || a >= b ? a : b);

/**
 * The state the stream announced (`live`: it follows every stored state change), else the detail's; the
 * times are the later of the two, as they only move forward and the detail may be the newer (an audit
 * sets its time without a state change, so without an event).
 */
function newest(live: DeviceSync | undefined, loaded: DeviceSync | undefined): DeviceSync | undefined {
  if (!live || !loaded) return live ?? loaded;
  return {
    ...live,
    last_confirmed_at: later(live.last_confirmed_at, loaded.last_confirmed_at),
    last_audit_at: later(live.last_audit_at, loaded.last_audit_at),
  };
}

/**
 * `live` is the state the stream last announced (`devices/<sn>/sync`); each new one loads the PIN lists
 * again, so the lists follow the state without a reload. The end of the terminal's roster commands (and of
 * an audit started here) loads them again too: an audit sets the last audit time and its repairs may settle
 * without a state change, which no sync event announces.
 */
export function SyncSection({
  session,
  zone,
  sn,
  live,
}: {
  session: Session & { kind: 'location' };
  zone: string;
  sn: string;
  live: DeviceSync | undefined;
}) {
  useLanguage();
  const [page, setPage] = useState(1);
  useEffect(() => setPage(1), [sn]);
  const detail = useLoad(
    () => api<SyncDetail>(session.token, 'GET', `/api/devices/${encodeURIComponent(sn)}/sync${query({ page, limit: LIMIT })}`),
    [sn, page, live],
  );
  // Repairs and audits end without a sync event when the state they pass through is never stored: the
  // end of each of this terminal's roster commands loads the detail again (once per burst of them).
  const reload = detail.reload;
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const close = openStream({
      token: session.token,
      topics: ['commands/+'],
      onMessage: (m) => {
        const c = m.payload as Command | null;
        if (!c || c.sn !== sn || !ROSTER_COMMANDS.has(c.command) || (c.status !== 'success' && c.status !== 'failed')) return;
        timer ??= setTimeout(() => {
          timer = undefined;
          reload();
        }, BURST_MS);
      },
    });
    return () => {
      close();
      if (timer !== undefined) clearTimeout(timer);
    };
  }, [session.token, sn, reload]);
  const d = detail.data;
  const loaded: DeviceSync | undefined = d ? { ...d, refused: d.refused.total } : undefined;
  const state = newest(live, loaded);
  return (
    <section aria-labelledby="sync-h">
      <h2 id="sync-h">{t('syncDetail.title')}</h2>
      {detail.error && <Notice kind="error">{detail.error}</Notice>}
      <dl class="facts sync-facts">
        <SyncFacts sync={state} zone={zone} times />
      </dl>
      <AuditControl session={session} sn={sn} onDone={detail.reload} />
      {d && (
        <>
          <PinTable id="missing-h" caption={t('syncDetail.missing')} page={d.missing} zone={zone} codes={false} />
          <PinTable id="extra-h" caption={t('syncDetail.extra')} page={d.extra} zone={zone} codes={false} />
          <PinTable id="refused-h" caption={t('syncDetail.refused')} page={d.refused} zone={zone} codes />
          <Pager page={longest(d)} onPage={setPage} label={t('syncDetail.pager')} />
        </>
      )}
    </section>
  );
}
