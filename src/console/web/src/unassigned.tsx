/** The admin view of terminals that called in without belonging to a location, and their assignment. */
import { useState } from 'preact/hooks';
import { api, query } from './api.js';
import type { Location, Reply } from './api-types.js';
import { t, useLanguage } from './i18n/index.js';
import { formatLocal } from './time.js';
import { errorText, Messages, type Msg, Pager, Table, useLoad } from './ui.js';

const UTC = 'UTC';

export function UnassignedPage({ token }: { token: string }) {
  useLanguage();
  const [page, setPage] = useState(1);
  const list = useLoad(
    () => api<Reply<'/admin/devices/unassigned', 'get'>>(token, 'GET', `/admin/devices/unassigned${query({ page, limit: 50 })}`),
    [page],
  );
  const locations = useLoad(() => api<Location[]>(token, 'GET', '/admin/locations'), []);
  const [target, setTarget] = useState<Record<string, string>>({});
  const [message, setMessage] = useState<Msg>(null);

  /** The admin API's assignment: the same checks and roster sync as POST /api/devices with a token of that location. */
  const assign = async (sn: string) => {
    const locationId = target[sn] ?? String(locations.data?.[0]?.id ?? '');
    if (!locationId) return;
    try {
      await api(token, 'POST', `/admin/devices/${encodeURIComponent(sn)}/assign`, { location_id: Number(locationId) });
      setMessage({ kind: 'ok', text: t('unassigned.assigned', { sn, id: locationId }) });
      list.reload();
    } catch (err) {
      setMessage({ kind: 'error', text: `${sn}: ${errorText(err)}` });
    }
  };

  return (
    <>
      <h1 tabIndex={-1}>{t('unassigned.title')}</h1>
      <p class="lead">{t('unassigned.lead')}</p>
      <Messages message={message} errors={[list.error]} />
      {list.data && list.data.data.length === 0 && <p>{t('unassigned.none')}</p>}
      {list.data && list.data.data.length > 0 && (
        <Table
          caption={t('unassigned.title')}
          columns={[
            t('unassigned.serial'),
            t('unassigned.firstContact'),
            t('unassigned.lastContact'),
            t('unassigned.address'),
            t('unassigned.protocol'),
            t('unassigned.assignTo'),
          ]}
        >
          {list.data.data.map((d) => (
            <tr key={d.serial_number} data-sn={d.serial_number}>
              <td>{d.serial_number}</td>
              <td>{formatLocal(d.first_seen, UTC)}</td>
              <td>{formatLocal(d.last_seen, UTC)}</td>
              <td>{d.last_address ?? '—'}</td>
              <td>{d.version ?? '—'}</td>
              <td class="row-actions">
                <select
                  aria-label={t('unassigned.locationFor', { sn: d.serial_number })}
                  value={target[d.serial_number] ?? String(locations.data?.[0]?.id ?? '')}
                  onChange={(e) => setTarget({ ...target, [d.serial_number]: e.currentTarget.value })}
                >
                  {(locations.data ?? []).map((l) => (
                    <option key={l.id} value={l.id}>
                      {l.name}
                    </option>
                  ))}
                </select>
                <button
                  type="button"
                  aria-label={t('unassigned.assignLabel', { sn: d.serial_number })}
                  onClick={() => void assign(d.serial_number)}
                >
                  {t('unassigned.assign')}
                </button>
              </td>
            </tr>
          ))}
        </Table>
      )}
      <Pager page={list.data} onPage={setPage} label={t('unassigned.title')} />
    </>
  );
}
