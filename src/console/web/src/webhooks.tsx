/**
 * The location's webhooks (GET /api/webhooks, issue #38 item 7): each subscription with its events and state
 * (enabled, paused after failures and why, disabled by BioGate and why), its deliveries on demand
 * (webhook-deliveries.tsx). A full token also subscribes a URL to chosen event types (POST /api/webhooks: the signing
 * secret is shown once, here), enables and disables (PATCH), and deletes (typed confirmation). Other tokens see the
 * list with URLs cut to scheme and host, as the API gives them.
 */
import { useState } from 'preact/hooks';
import { api, type Session } from './api.js';
import type { Reply } from './api-types.js';
import { WEBHOOK_EVENTS } from './generated/events.js';
import { formatLocal } from './time.js';
import { WebhookDeliveries } from './webhook-deliveries.js';
import { ConfirmRecord, DangerButton, errorText, Form, Notice, Table, useLoad, type Msg } from './ui.js';
import { t, useLanguage } from './i18n/index.js';

type Hook = Reply<'/api/webhooks', 'get'>['data'][number];

function state(h: Hook, zone: string): string {
  if (!h.enabled) return h.disabled_reason ? t('webhooks.disabledBecause', { reason: h.disabled_reason }) : t('webhooks.disabled');
  if (h.paused_until) {
    const time = formatLocal(h.paused_until, zone);
    return h.last_error ? t('webhooks.pausedBecause', { time, error: h.last_error }) : t('webhooks.paused', { time });
  }
  return t('webhooks.enabled');
}

export function WebhooksPage({ session, zone }: { session: Session & { kind: 'location' }; zone: string }) {
  useLanguage();
  const token = session.token;
  const full = session.me.token.scope === 'full';
  const hooks = useLoad(async () => (await api<{ data: Hook[] }>(token, 'GET', '/api/webhooks')).data, [token]);
  const [shown, setShown] = useState<number | null>(null);
  const [msg, setMsg] = useState<Msg>(null);
  const [secret, setSecret] = useState<{ url: string; secret: string } | null>(null);
  const [removing, setRemoving] = useState<Hook | null>(null);
  const [url, setUrl] = useState('');
  const [description, setDescription] = useState('');
  const [events, setEvents] = useState<readonly string[]>(['attendance.recorded']);

  const act = async (what: string, call: () => Promise<unknown>, done: string) => {
    try {
      await call();
      setMsg({ kind: 'ok', text: done });
      hooks.reload();
    } catch (err) {
      setMsg({ kind: 'error', text: t('webhooks.failed', { what, error: errorText(err) }) });
    }
  };
  const create = () =>
    act(
      t('webhooks.notCreated'),
      async () => {
        const made = await api<Hook & { secret: string }>(token, 'POST', '/api/webhooks', {
          url: url.trim(),
          events,
          ...(description.trim() ? { description: description.trim() } : {}),
        });
        setSecret({ url: made.url, secret: made.secret });
        setUrl('');
        setDescription('');
      },
      t('webhooks.created'),
    );

  return (
    <>
      <h1 tabIndex={-1}>{t('webhooks.title')}</h1>
      <p class="lead">{t('webhooks.lead')}</p>
      {msg && <Notice kind={msg.kind}>{msg.text}</Notice>}
      {secret && (
        <div class="panel secret" role="status">
          <p>
            {t('webhooks.secret', { url: secret.url })} <code>{secret.secret}</code>
          </p>
          <p class="hint">{t('webhooks.secretHint')}</p>
        </div>
      )}
      {hooks.error && <Notice kind="error">{hooks.error}</Notice>}
      {hooks.data && hooks.data.length === 0 && <p>{t('webhooks.none')}</p>}
      {hooks.data && hooks.data.length > 0 && (
        <Table caption={t('webhooks.caption')} columns={[t('webhooks.url'), t('webhooks.events'), t('webhooks.state'), '']}>
          {hooks.data.map((h) => (
            <tr key={h.id} data-webhook={h.id}>
              <td>
                {h.url}
                {h.description && <div class="hint">{h.description}</div>}
              </td>
              <td>{h.events.join(', ')}</td>
              <td>{state(h, zone)}</td>
              <td class="row-actions">
                <button type="button" aria-expanded={shown === h.id} onClick={() => setShown(shown === h.id ? null : h.id)}>
                  {t('webhooks.deliveries')}
                </button>
                {full && (
                  <button
                    type="button"
                    onClick={() =>
                      void act(
                        t('webhooks.notChanged'),
                        () => api(token, 'PATCH', `/api/webhooks/${h.id}`, { enabled: !h.enabled }),
                        h.enabled ? t('webhooks.nowDisabled', { url: h.url }) : t('webhooks.nowEnabled', { url: h.url }),
                      )
                    }
                  >
                    {h.enabled ? t('webhooks.disable') : t('webhooks.enable')}
                  </button>
                )}
                {full && (
                  <DangerButton label={t('webhooks.deleteLabel', { url: h.url })} onClick={() => setRemoving(h)}>
                    {t('webhooks.delete')}
                  </DangerButton>
                )}
              </td>
            </tr>
          ))}
        </Table>
      )}
      {shown !== null && hooks.data?.some((h) => h.id === shown) && (
        <WebhookDeliveries token={token} id={shown} url={hooks.data.find((h) => h.id === shown)?.url ?? ''} full={full} zone={zone} />
      )}
      <ConfirmRecord
        pending={removing}
        title={t('webhooks.confirmDelete')}
        word={t('webhooks.deleteWord')}
        action={t('webhooks.deleteAction')}
        onClose={() => setRemoving(null)}
        onConfirm={(h) => {
          if (shown === h.id) setShown(null);
          void act(t('webhooks.notDeleted'), () => api(token, 'DELETE', `/api/webhooks/${h.id}`), t('webhooks.deleted', { url: h.url }));
        }}
      >
        <p>{t('webhooks.deleteEffect', { url: removing?.url ?? '' })}</p>
      </ConfirmRecord>
      {full && (
        <>
          <h2 id="new-webhook-h">{t('webhooks.new')}</h2>
          <Form class="form" aria-labelledby="new-webhook-h" onSubmit={() => void create()}>
            <label>
              {t('webhooks.url')} <input type="url" value={url} required maxLength={2048} onInput={(e) => setUrl(e.currentTarget.value)} />
            </label>
            <label>
              {t('webhooks.description')}{' '}
              <input value={description} maxLength={500} onInput={(e) => setDescription(e.currentTarget.value)} />
            </label>
            <fieldset class="checks">
              <legend>{t('webhooks.events')}</legend>
              {WEBHOOK_EVENTS.map((name) => (
                <label key={name} class="check">
                  <input
                    type="checkbox"
                    checked={events.includes(name)}
                    onChange={(e) => setEvents(e.currentTarget.checked ? [...events, name] : events.filter((x) => x !== name))}
                  />
                  {name}
                </label>
              ))}
            </fieldset>
            <div class="buttons">
              <button type="submit" class="primary" disabled={events.length === 0}>
                {t('webhooks.create')}
              </button>
            </div>
          </Form>
        </>
      )}
    </>
  );
}
