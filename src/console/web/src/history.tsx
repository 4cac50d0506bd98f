/**
 * The location's audit log (GET /api/audit, issue #36 item 1): who changed what, newest first, a page at a time,
 * optionally one kind of record. Each change reads "field: before → after"; a secret only says that it changed.
 */
import { useState } from 'preact/hooks';
import { api, query, type Session } from './api.js';
import type { Page, Reply } from './api-types.js';
import { formatLocal } from './time.js';
import { Notice, Pager, Table, useLoad } from './ui.js';
import { t, useLanguage } from './i18n/index.js';

type Entry = Extract<Reply<'/api/audit', 'get'>, { total: number }>['data'][number];
const LIMIT = 50;
const TYPES = [
  'user',
  'device',
  'area',
  'schedule',
  'access_level',
  'holiday',
  'webhook',
  'token',
  'location',
  'command',
  'attendance',
] as const;

const shown = (v: unknown): string => (v === null || v === undefined ? '—' : typeof v === 'string' ? v : JSON.stringify(v));

function who(actor: Entry['actor']): string {
  if (actor.kind === 'token') {
    const id = actor.token_id ?? '';
    return actor.label ? t('history.tokenLabelled', { id, label: actor.label }) : t('history.token', { id });
  }
  if (actor.kind === 'cli') return actor.label ? t('history.cliLabelled', { label: actor.label }) : t('history.cli');
  return actor.kind === 'admin' ? t('history.admin') : 'BioGate';
}

export function HistoryPage({ session, zone }: { session: Session & { kind: 'location' }; zone: string }) {
  useLanguage();
  const [page, setPage] = useState(1);
  const [type, setType] = useState('');
  const list = useLoad(
    () => api<Page<Entry>>(session.token, 'GET', `/api/audit${query({ page, limit: LIMIT, ...(type ? { target_type: type } : {}) })}`),
    [page, type],
  );
  return (
    <section aria-labelledby="history-h">
      <h1 id="history-h">{t('history.title')}</h1>
      <p>{t('history.lead')}</p>
      <label>
        {t('history.records')}{' '}
        <select
          value={type}
          onChange={(e) => {
            setType((e.target as HTMLSelectElement).value);
            setPage(1);
          }}
        >
          <option value="">{t('history.all')}</option>
          {TYPES.map((type) => (
            <option key={type} value={type}>
              {t(`history.type.${type}`)}
            </option>
          ))}
        </select>
      </label>
      {list.error && <Notice kind="error">{list.error}</Notice>}
      {list.data && list.data.total === 0 && <p>{t('history.none')}</p>}
      {list.data && list.data.total > 0 && (
        <Table caption={t('history.caption')} columns={[t('history.when'), t('history.who'), t('history.what'), t('history.changes')]}>
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
                      {field}: {Array.isArray(change) ? `${shown(change[0])} → ${shown(change[1])}` : t('history.changed')}
                    </li>
                  ))}
                </ul>
              </td>
            </tr>
          ))}
        </Table>
      )}
      <Pager page={list.data} onPage={setPage} label={t('history.pager')} />
    </section>
  );
}
