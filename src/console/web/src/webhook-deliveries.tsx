/**
 * One webhook's deliveries (GET /api/webhooks/{id}/deliveries, kept 7 days), newest first and paged, refreshed every
 * few seconds while shown; with a full token, "Send a test" (POST …/test: a `ping`, or a sample punch for the preset
 * formats, through the same signing, queue and retries as real events) and "Redeliver failed" for the last 24 hours
 * (POST …/redeliver).
 */
import { useEffect, useState } from 'preact/hooks';
import { api, query } from './api.js';
import type { Reply } from './api-types.js';
import { formatLocal } from './time.js';
import { errorText, Notice, Pager, Table, useLoad, type Msg } from './ui.js';
import { t, useLanguage } from './i18n/index.js';

type Deliveries = Reply<'/api/webhooks/{webhook_id}/deliveries', 'get'>;

/** How often a shown list of deliveries is loaded again, so a test or a retry shows its outcome. */
const REFRESH_MS = 2_000;
const DAY_MS = 86_400_000;

/** A delivery's status in words, in the current language (another status as the API gives it). */
const statusText = (status: string): string =>
  status === 'pending' || status === 'delivered' || status === 'failed' ? t(`deliveries.${status}`) : status;

export function WebhookDeliveries(props: { token: string; id: number; url: string; full: boolean; zone: string }) {
  useLanguage();
  const { token, id, full, zone } = props;
  const [page, setPage] = useState(1);
  const [msg, setMsg] = useState<Msg>(null);
  const list = useLoad(
    () => api<Deliveries>(token, 'GET', `/api/webhooks/${id}/deliveries${query({ page, limit: 20 })}`),
    [token, id, page],
  );
  useEffect(() => {
    const timer = setInterval(() => list.reload(), REFRESH_MS);
    return () => clearInterval(timer);
  }, [token, id, page]);

  const test = async () => {
    try {
      await api(token, 'POST', `/api/webhooks/${id}/test`);
      setMsg({ kind: 'ok', text: t('deliveries.testQueued') });
      list.reload();
    } catch (err) {
      setMsg({ kind: 'error', text: t('deliveries.testNotQueued', { error: errorText(err) }) });
    }
  };
  const redeliver = async () => {
    try {
      const since = new Date(Date.now() - DAY_MS).toISOString();
      const { count } = await api<{ count: number }>(token, 'POST', `/api/webhooks/${id}/redeliver`, { since });
      setMsg({ kind: 'ok', text: count === 0 ? t('deliveries.noneFailed') : t('deliveries.requeued', { count }) });
      list.reload();
    } catch (err) {
      setMsg({ kind: 'error', text: t('deliveries.notRequeued', { error: errorText(err) }) });
    }
  };

  return (
    <section class="panel" aria-labelledby={`deliveries-${id}`}>
      <h2 id={`deliveries-${id}`}>{t('deliveries.title', { url: props.url })}</h2>
      {full && (
        <div class="buttons">
          <button type="button" onClick={() => void test()}>
            {t('deliveries.test')}
          </button>
          <button type="button" onClick={() => void redeliver()}>
            {t('deliveries.redeliver')}
          </button>
        </div>
      )}
      {msg && <Notice kind={msg.kind}>{msg.text}</Notice>}
      {list.error && <Notice kind="error">{list.error}</Notice>}
      {list.data && list.data.data.length === 0 && <p>{t('deliveries.none')}</p>}
      {list.data && list.data.data.length > 0 && (
        <Table
          caption={t('deliveries.caption', { url: props.url })}
          columns={[
            t('deliveries.created', { zone }),
            t('deliveries.event'),
            t('deliveries.status'),
            t('deliveries.attempts'),
            t('deliveries.answer'),
            t('deliveries.next'),
          ]}
        >
          {list.data.data.map((d) => (
            <tr key={d.id} data-delivery={d.id}>
              <td>{formatLocal(d.created_at, zone)}</td>
              <td>{d.type}</td>
              <td>{statusText(d.status)}</td>
              <td>{d.attempts}</td>
              <td>
                {d.last_status_code ?? '—'}
                {d.last_error && <span class="hint"> {d.last_error}</span>}
                {d.duration_ms !== null && <span class="hint"> ({d.duration_ms} ms)</span>}
              </td>
              <td>{d.next_attempt_at ? formatLocal(d.next_attempt_at, zone) : '—'}</td>
            </tr>
          ))}
        </Table>
      )}
      <Pager page={list.data} onPage={setPage} label={t('deliveries.title', { url: props.url })} />
    </section>
  );
}
