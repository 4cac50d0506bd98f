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
import { t, useLanguage } from './i18n/index.js';

type Rule = Reply<'/api/alerts', 'get'>[number];
type Kind = Rule['kind'];
type Hook = Reply<'/api/webhooks', 'get'>['data'][number];

/** The parameters a kind may have. */
type Param = 'minutes' | 'count' | 'percent';
const isParam = (p: string): p is Param => p === 'minutes' || p === 'count' || p === 'percent';

/** Each kind's parameters, in the order the form asks for them. */
const KINDS: Readonly<Record<Kind, readonly Param[]>> = {
  device_offline: ['minutes'],
  door_forced_or_held: [],
  alarm: ['minutes'],
  denied_burst: ['count', 'minutes'],
  storage_high: ['percent'],
  sync_drift: ['minutes'],
  webhook_failing: [],
};

/** A kind's name in the current language. */
const kindText = (kind: Kind): string => t(`alerts.kind.${kind}`);
/** A rule's parameter and its value, as the rules table shows it ("minutes 3"). */
const paramText = (name: string, value: unknown): string =>
  isParam(name) ? t(`alerts.value.${name}`, { value: String(value) }) : `${name} ${String(value)}`;

export function AlertsPage({ session, zone }: { session: Session & { kind: 'location' }; zone: string }) {
  useLanguage();
  const rules = useLoad(() => api<Rule[]>(session.token, 'GET', '/api/alerts'), []);
  const hooks = useLoad(async () => (await api<{ data: Hook[] }>(session.token, 'GET', '/api/webhooks')).data, []);
  const [name, setName] = useState('');
  const [kind, setKind] = useState<Kind>('device_offline');
  const [params, setParams] = useState<Record<string, string>>({});
  const [webhook, setWebhook] = useState('');
  const [msg, setMsg] = useState<Msg>(null);

  const create = async () => {
    const given = Object.fromEntries(KINDS[kind].filter((p) => (params[p] ?? '') !== '').map((p) => [p, Number(params[p])]));
    try {
      await api(session.token, 'POST', '/api/alerts', { name, kind, params: given, webhook_id: webhook ? Number(webhook) : null });
      setMsg({ kind: 'ok', text: t('alerts.created', { name }) });
      setName('');
      setParams({});
      rules.reload();
    } catch (err) {
      setMsg({ kind: 'error', text: t('alerts.notCreated', { error: errorText(err) }) });
    }
  };
  const remove = async (rule: Rule) => {
    try {
      await api(session.token, 'DELETE', `/api/alerts/${rule.id}`);
      setMsg({ kind: 'ok', text: t('alerts.deleted', { name: rule.name }) });
      rules.reload();
    } catch (err) {
      setMsg({ kind: 'error', text: t('alerts.notDeleted', { name: rule.name, error: errorText(err) }) });
    }
  };

  return (
    <section aria-labelledby="alerts-h">
      <h1 id="alerts-h">{t('alerts.title')}</h1>
      <p>{t('alerts.lead')}</p>
      {msg && <Notice kind={msg.kind}>{msg.text}</Notice>}
      {rules.error && <Notice kind="error">{rules.error}</Notice>}
      {rules.data && rules.data.length === 0 && <p>{t('alerts.none')}</p>}
      {rules.data && rules.data.length > 0 && (
        <Table
          caption={t('alerts.caption')}
          columns={[t('alerts.name'), t('alerts.condition'), t('alerts.webhook'), t('alerts.openNow'), '']}
        >
          {rules.data.map((r) => (
            <tr key={r.id} data-rule={r.id}>
              <td>{r.name}</td>
              <td>
                {kindText(r.kind)}
                {Object.keys(r.params).length > 0 &&
                  ` (${Object.entries(r.params)
                    .map(([k, v]) => paramText(k, v))
                    .join(', ')})`}
                {!r.enabled && ` ${t('alerts.disabled')}`}
              </td>
              <td>
                {r.webhook_id === null
                  ? '—'
                  : (hooks.data?.find((h) => h.id === r.webhook_id)?.url ?? t('alerts.webhookId', { id: r.webhook_id }))}
              </td>
              <td class="incidents">
                {r.incidents.length === 0
                  ? t('alerts.noIncident')
                  : r.incidents.map((i) => <div key={i.key}>{t('alerts.since', { key: i.key, time: formatLocal(i.since, zone) })}</div>)}
              </td>
              <td>
                <DangerButton label={t('alerts.deleteLabel', { name: r.name })} onClick={() => void remove(r)}>
                  {t('alerts.delete')}
                </DangerButton>
              </td>
            </tr>
          ))}
        </Table>
      )}
      <h2 id="new-alert-h">{t('alerts.new')}</h2>
      <Form class="form" aria-labelledby="new-alert-h" onSubmit={() => void create()}>
        <label>
          {t('alerts.name')} <input value={name} required maxLength={100} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
        </label>
        <label>
          {t('alerts.condition')}{' '}
          <select value={kind} onChange={(e) => setKind((e.target as HTMLSelectElement).value as Kind)}>
            {(Object.keys(KINDS) as Kind[]).map((k) => (
              <option key={k} value={k}>
                {kindText(k)}
              </option>
            ))}
          </select>
        </label>
        {KINDS[kind].map((p) => (
          <label key={p}>
            {t(`alerts.param.${p}`)}{' '}
            <input
              type="number"
              min={1}
              value={params[p] ?? ''}
              placeholder={t('alerts.default')}
              onInput={(e) => setParams({ ...params, [p]: (e.target as HTMLInputElement).value })}
            />
          </label>
        ))}
        <label>
          {t('alerts.webhook')}{' '}
          <select value={webhook} onChange={(e) => setWebhook((e.target as HTMLSelectElement).value)}>
            <option value="">{t('alerts.noWebhook')}</option>
            {(hooks.data ?? []).map((h) => (
              <option key={h.id} value={String(h.id)}>
                {h.url}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" class="primary" disabled={name.trim() === ''}>
          {t('alerts.create')}
        </button>
      </Form>
    </section>
  );
}
