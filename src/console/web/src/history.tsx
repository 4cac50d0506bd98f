/**
 * The location's audit log (GET /api/audit, issue #36 item 1): who changed what, newest first, a page at a time,
 * optionally one kind of record. Each change reads "field: before → after"; a secret only says that it changed.
 */
import { useState } from 'preact/hooks';
import { api, query, type Session } from './api.js';
import type { Page, Reply } from './api-types.js';
import { formatLocal } from './time.js';
import { Notice, Pager, Table, useLoad } from './ui.js';

type Entry = Extract<Reply<'/api/audit', 'get'>, { total: number }>['data'][number];
const LIMIT = 50;
const TYPES = ['user', 'device', 'area', 'schedule', 'access_level', 'holiday', 'webhook', 'token', 'location', 'command', 'attendance'];

const shown = (v: unknown): string => (v === null || v === undefined ? '—' : typeof v === 'string' ? v : JSON.stringify(v));

function who(actor: Entry['actor']): string {
  if (actor.kind === 'token') return `token ${actor.token_id ?? ''}${actor.label ? ` (${actor.label})` : ''}`;
  if (actor.kind === 'cli') return `CLI${actor.label ? ` (${actor.label})` : ''}`;
  return actor.kind === 'admin' ? 'admin' : 'BioGate';
}

export function HistoryPage({ session, zone }: { session: Session & { kind: 'location' }; zone: string }) {
  const [page, setPage] = useState(1);
  const [type, setType] = useState('');
  const list = useLoad(
    () => api<Page<Entry>>(session.token, 'GET', `/api/audit${query({ page, limit: LIMIT, ...(type ? { target_type: type } : {}) })}`),
    [page, type],
  );
  return (
    <section aria-labelledby="history-h">
      <h1 id="history-h">History</h1>
      <p>Every change made through the API, this console, MQTT or the CLI, newest first.</p>
      <label>
        Records{' '}
        <select
          value={type}
          onChange={(e) => {
            setType((e.target as HTMLSelectElement).value);
            setPage(1);
          }}
        >
          <option value="">all</option>
          {TYPES.map((t) => (
            <option key={t} value={t}>
              {t.replace('_', ' ')}
            </option>
          ))}
        </select>
      </label>
      {list.error && <Notice kind="error">{list.error}</Notice>}
      {list.data && list.data.total === 0 && <p>No change recorded.</p>}
      {list.data && list.data.total > 0 && (
        <Table caption="Changes" columns={['When', 'Who', 'What', 'Changes']}>
          {list.data.data.map((e) => (
            <tr key={e.id} data-action={e.action}>
              <td>{formatLocal(e.at, zone)}</td>
              <td>{who(e.actor)}</td>
              <td>
                {e.action} {e.target.id}
              </td>
              <td>
                <ul class="changes">
                  {Object.entries(e.changes).map(([field, change]) => (
                    <li key={field}>
                      {field}: {Array.isArray(change) ? `${shown(change[0])} → ${shown(change[1])}` : 'changed'}
                    </li>
                  ))}
                </ul>
              </td>
            </tr>
          ))}
        </Table>
      )}
      <Pager page={list.data} onPage={setPage} label="History" />
    </section>
  );
}
