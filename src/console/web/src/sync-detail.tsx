/**
 * The device page's roster sync section: the state (badge, owed lines, refusals, reason, times) and the
 * owed PINs of GET /api/devices/{sn}/sync: `missing` (owed upserts), `extra` (owed revocations) and
 * `refused` (with the terminal's return code). The API pages the three lists together (page and limit
 * apply to each), so one pager turns them all.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, query, type Session } from './api.js';
import type { DeviceSync, OwedPin, Page, SyncDetail } from './api-types.js';
import { SyncFacts } from './sync-state.js';
import { formatLocal } from './time.js';
import { HeaderRow, Notice, Pager, useLoad } from './ui.js';

const LIMIT = 20;

function PinTable({ id, caption, page, zone, codes }: { id: string; caption: string; page: Page<OwedPin>; zone: string; codes: boolean }) {
  return (
    <section aria-labelledby={id} class="owed">
      <h3 id={id}>
        {caption} ({page.total})
      </h3>
      {page.data.length === 0 ? (
        <p>None.</p>
      ) : (
        <div class="table-wrap">
          <table aria-labelledby={id}>
            <thead>
              <HeaderRow columns={codes ? ['PIN', 'Owed since', 'Return code'] : ['PIN', 'Owed since']} />
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

/**
 * `live` is the state the stream last announced (`devices/<sn>/sync`); each new one loads the PIN lists
 * again, so the lists follow the state without a reload.
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
  const [page, setPage] = useState(1);
  useEffect(() => setPage(1), [sn]);
  const detail = useLoad(
    () => api<SyncDetail>(session.token, 'GET', `/api/devices/${encodeURIComponent(sn)}/sync${query({ page, limit: LIMIT })}`),
    [sn, page, live],
  );
  const d = detail.data;
  // The stream's state is at least as new as the detail's; the detail's stands in until one arrives.
  const state: DeviceSync | undefined = live ?? (d ? { ...d, refused: d.refused.total } : undefined);
  return (
    <section aria-labelledby="sync-h">
      <h2 id="sync-h">Roster sync</h2>
      {detail.error && <Notice kind="error">{detail.error}</Notice>}
      <dl class="facts sync-facts">
        <SyncFacts sync={state} zone={zone} times />
      </dl>
      {d && (
        <>
          <PinTable
            id="missing-h"
            caption="Missing: users the terminal should hold, not confirmed"
            page={d.missing}
            zone={zone}
            codes={false}
          />
          <PinTable
            id="extra-h"
            caption="Extra: users the terminal should not hold, removal not confirmed"
            page={d.extra}
            zone={zone}
            codes={false}
          />
          <PinTable id="refused-h" caption="Refused: lines the terminal refused" page={d.refused} zone={zone} codes />
          <Pager page={longest(d)} onPage={setPage} label="Owed PINs" />
        </>
      )}
    </section>
  );
}
