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

type Deliveries = Reply<'/api/webhooks/{webhook_id}/deliveries', 'get'>;

/** How often a shown list of deliveries is loaded again, so a test or a retry shows its outcome. */
const REFRESH_MS = 2_000;
const DAY_MS = 86_400_000;

const STATUS: Readonly<Record<string, string>> = { pending: '↻ Pending', delivered: '✓ Delivered', failed: '✗ Failed' };

export function WebhookDeliveries(props: { token: string; id: number; url: string; full: boolean; zone: string }) {
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
      setMsg({ kind: 'ok', text: 'Test queued: it is listed below with its outcome.' });
      list.reload();
    } catch (err) {
      setMsg({ kind: 'error', text: `The test was not queued: ${errorText(err)}` });
    }
  };
  const redeliver = async () => {
    try {
      const since = new Date(Date.now() - DAY_MS).toISOString();
      const { count } = await api<{ count: number }>(token, 'POST', `/api/webhooks/${id}/redeliver`, { since });
      setMsg({ kind: 'ok', text: count === 0 ? 'No failed delivery in the last 24 hours.' : `${count} failed deliveries queued again.` });
      list.reload();
    } catch (err) {
      setMsg({ kind: 'error', text: `Nothing was queued again: ${errorText(err)}` });
    }
  };

  return (
    <section class="panel" aria-labelledby={`deliveries-${id}`}>
      <h2 id={`deliveries-${id}`}>Deliveries to {props.url}</h2>
      {full && (
        <div class="buttons">
          <button type="button" onClick={() => void test()}>
            Send a test
          </button>
          <button type="button" onClick={() => void redeliver()}>
            Redeliver failed (last 24 hours)
          </button>
        </div>
      )}
      {msg && <Notice kind={msg.kind}>{msg.text}</Notice>}
      {list.error && <Notice kind="error">{list.error}</Notice>}
      {list.data && list.data.data.length === 0 && <p>No delivery in the last 7 days.</p>}
      {list.data && list.data.data.length > 0 && (
        <Table
          caption={`Deliveries to ${props.url}, newest first`}
          columns={[`Created (${zone})`, 'Event', 'Status', 'Attempts', 'Answer', 'Next try']}
        >
          {list.data.data.map((d) => (
            <tr key={d.id} data-delivery={d.id}>
              <td>{formatLocal(d.created_at, zone)}</td>
              <td>{d.type}</td>
              <td>{STATUS[d.status] ?? d.status}</td>
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
      <Pager page={list.data} onPage={setPage} label={`Deliveries to ${props.url}`} />
    </section>
  );
}
