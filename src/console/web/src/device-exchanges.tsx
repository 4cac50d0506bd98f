/**
 * A terminal's last exchanges (GET /api/devices/{sn}/exchanges): what it asked and was answered, for "it is online but
 * nothing arrives" without the server's logs. A run of identical idle polls is one row; a row with an error is marked.
 */
import { api, type Session } from './api.js';
import type { Reply } from './api-types.js';
import { formatLocal } from './time.js';
import { Notice, Table, useLoad } from './ui.js';
import { t, useLanguage } from './i18n/index.js';

type Exchanges = Reply<'/api/devices/{device_serial}/exchanges', 'get'>;
const SHOWN = 50;

export function DeviceExchanges({ session, zone, sn }: { session: Session & { kind: 'location' }; zone: string; sn: string }) {
  useLanguage();
  const path = `/api/devices/${encodeURIComponent(sn)}/exchanges?limit=${SHOWN}`;
  const list = useLoad(() => api<Exchanges>(session.token, 'GET', path), [sn]);
  return (
    <section aria-labelledby="exchanges-h">
      <h2 id="exchanges-h">{t('exchanges.title')}</h2>
      <p>
        {t('exchanges.lead')}{' '}
        <button type="button" onClick={list.reload}>
          {t('exchanges.refresh')}
        </button>
      </p>
      {list.error && <Notice kind="error">{list.error}</Notice>}
      {list.data && list.data.count === 0 && <p>{t('exchanges.none')}</p>}
      {list.data && list.data.count > 0 && (
        <Table
          caption={t('exchanges.caption')}
          columns={[t('exchanges.when'), t('exchanges.request'), t('exchanges.lines'), t('exchanges.answer'), t('exchanges.error')]}
        >
          {list.data.data.map((e) => (
            <tr key={`${e.first_at}-${e.endpoint}`} data-endpoint={e.endpoint} class={e.error ? 'failed' : undefined}>
              <td>
                {formatLocal(e.at, zone)}
                {e.repeat > 1 && ` ${t('exchanges.repeat', { n: String(e.repeat), time: formatLocal(e.first_at, zone) })}`}
              </td>
              <td>
                {e.method} {e.endpoint}
                {e.table ? ` ${e.table}` : ''}
              </td>
              <td class="num">{e.records ?? '—'}</td>
              <td class="answer">
                {e.status}, {e.answer_bytes} B
              </td>
              <td class="error">{e.error ?? ''}</td>
            </tr>
          ))}
        </Table>
      )}
    </section>
  );
}
