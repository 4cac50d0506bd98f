/**
 * The location's alert rules (GET/POST /api/alerts, DELETE /api/alerts/{id}, issue #36 item 4): each rule with its
 * open incidents, a form for a new one (its kind's parameters, the webhook it goes to), deletion. Parameters left
 * empty take the kind's defaults on the server.
 */
import { useState } from 'preact/hooks';
import { api, type Session } from './api.js';
import type { Reply } from './api-types.js';
import { formatLocal } from './time.js';
import { DangerButton, errorText, Form, Notice, Table, useLoad, type Msg } from './ui.js';

type Rule = Reply<'/api/alerts', 'get'>[number];
type Kind = Rule['kind'];
type Hook = Reply<'/api/webhooks', 'get'>['data'][number];

/** Each kind's parameters, in the order the form asks for them. */
const KINDS: Readonly<Record<Kind, { label: string; params: readonly string[] }>> = {
  device_offline: { label: 'Terminal offline', params: ['minutes'] },
  door_forced_or_held: { label: 'Door forced or held open', params: [] },
  alarm: { label: 'Alarm (tamper, duress, …)', params: ['minutes'] },
  denied_burst: { label: 'Burst of refused verifications', params: ['count', 'minutes'] },
  storage_high: { label: 'Terminal storage nearly full', params: ['percent'] },
  sync_drift: { label: 'Roster out of sync', params: ['minutes'] },
  webhook_failing: { label: 'Webhook failing', params: [] },
};

export function AlertsPage({ session, zone }: { session: Session & { kind: 'location' }; zone: string }) {
  const rules = useLoad(() => api<Rule[]>(session.token, 'GET', '/api/alerts'), []);
  const hooks = useLoad(async () => (await api<{ data: Hook[] }>(session.token, 'GET', '/api/webhooks')).data, []);
  const [name, setName] = useState('');
  const [kind, setKind] = useState<Kind>('device_offline');
  const [params, setParams] = useState<Record<string, string>>({});
  const [webhook, setWebhook] = useState('');
  const [msg, setMsg] = useState<Msg>(null);

  const create = async () => {
    const given = Object.fromEntries(KINDS[kind].params.filter((p) => (params[p] ?? '') !== '').map((p) => [p, Number(params[p])]));
    try {
      await api(session.token, 'POST', '/api/alerts', { name, kind, params: given, webhook_id: webhook ? Number(webhook) : null });
      setMsg({ kind: 'ok', text: `Alert rule “${name}” created.` });
      setName('');
      setParams({});
      rules.reload();
    } catch (err) {
      setMsg({ kind: 'error', text: `The rule was not created: ${errorText(err)}` });
    }
  };
  const remove = async (rule: Rule) => {
    try {
      await api(session.token, 'DELETE', `/api/alerts/${rule.id}`);
      setMsg({ kind: 'ok', text: `Alert rule “${rule.name}” deleted.` });
      rules.reload();
    } catch (err) {
      setMsg({ kind: 'error', text: `“${rule.name}” was not deleted: ${errorText(err)}` });
    }
  };

  return (
    <section aria-labelledby="alerts-h">
      <h1 id="alerts-h">Alerts</h1>
      <p>Each rule raises an alert once when its condition starts and once when it ends, on the event feed and to its webhook.</p>
      {msg && <Notice kind={msg.kind}>{msg.text}</Notice>}
      {rules.error && <Notice kind="error">{rules.error}</Notice>}
      {rules.data && rules.data.length === 0 && <p>No alert rule yet.</p>}
      {rules.data && rules.data.length > 0 && (
        <Table caption="Alert rules" columns={['Name', 'Condition', 'Webhook', 'Open now', '']}>
          {rules.data.map((r) => (
            <tr key={r.id} data-rule={r.id}>
              <td>{r.name}</td>
              <td>
                {KINDS[r.kind].label}
                {Object.keys(r.params).length > 0 &&
                  ` (${Object.entries(r.params)
                    .map(([k, v]) => `${k} ${v}`)
                    .join(', ')})`}
                {!r.enabled && ' — disabled'}
              </td>
              <td>{r.webhook_id === null ? '—' : (hooks.data?.find((h) => h.id === r.webhook_id)?.url ?? `webhook ${r.webhook_id}`)}</td>
              <td class="incidents">
                {r.incidents.length === 0
                  ? 'none'
                  : r.incidents.map((i) => (
                      <div key={i.key}>
                        {i.key} since {formatLocal(i.since, zone)}
                      </div>
                    ))}
              </td>
              <td>
                <DangerButton label={`Delete ${r.name}`} onClick={() => void remove(r)}>
                  Delete
                </DangerButton>
              </td>
            </tr>
          ))}
        </Table>
      )}
      <h2 id="new-alert-h">New alert rule</h2>
      <Form class="form" aria-labelledby="new-alert-h" onSubmit={() => void create()}>
        <label>
          Name <input value={name} required maxLength={100} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        </label>
        <label>
          Condition{' '}
          <select value={kind} onChange={(e) => setKind((e.target as HTMLSelectElement).value as Kind)}>
            {Object.entries(KINDS).map(([k, v]) => (
              <option key={k} value={k}>
                {v.label}
              </option>
            ))}
          </select>
        </label>
        {KINDS[kind].params.map((p) => (
          <label key={p}>
            {p[0]?.toUpperCase()}
            {p.slice(1)}{' '}
            <input
              type="number"
              min={1}
              value={params[p] ?? ''}
              placeholder="default"
              onInput={(e) => setParams({ ...params, [p]: (e.target as HTMLInputElement).value })}
            />
          </label>
        ))}
        <label>
          Webhook{' '}
          <select value={webhook} onChange={(e) => setWebhook((e.target as HTMLSelectElement).value)}>
            <option value="">none (the event feed only)</option>
            {(hooks.data ?? []).map((h) => (
              <option key={h.id} value={String(h.id)}>
                {h.url}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" class="primary" disabled={name.trim() === ''}>
          Create
        </button>
      </Form>
    </section>
  );
}
