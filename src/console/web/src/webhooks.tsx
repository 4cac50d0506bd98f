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

type Hook = Reply<'/api/webhooks', 'get'>['data'][number];

function state(h: Hook, zone: string): string {
  if (!h.enabled) return `Disabled${h.disabled_reason ? `: ${h.disabled_reason}` : ''}`;
  if (h.paused_until) return `Paused until ${formatLocal(h.paused_until, zone)}${h.last_error ? `: ${h.last_error}` : ''}`;
  return 'Enabled';
}

export function WebhooksPage({ session, zone }: { session: Session & { kind: 'location' }; zone: string }) {
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
      setMsg({ kind: 'error', text: `${what}: ${errorText(err)}` });
    }
  };
  const create = () =>
    act(
      'The webhook was not created',
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
      'Webhook created.',
    );

  return (
    <>
      <h1 tabIndex={-1}>Webhooks</h1>
      <p class="lead">
        BioGate POSTs the chosen events of this location to each URL, signed with Standard Webhooks headers, and retries a failed delivery
        with back-off for 24 hours.
      </p>
      {msg && <Notice kind={msg.kind}>{msg.text}</Notice>}
      {secret && (
        <div class="panel secret" role="status">
          <p>
            Signing secret of {secret.url}, shown this once: <code>{secret.secret}</code>
          </p>
          <p class="hint">Keep it where the receiver checks signatures; a new one can be made with the API (rotate-secret).</p>
        </div>
      )}
      {hooks.error && <Notice kind="error">{hooks.error}</Notice>}
      {hooks.data && hooks.data.length === 0 && <p>No webhook yet.</p>}
      {hooks.data && hooks.data.length > 0 && (
        <Table caption="Webhooks" columns={['URL', 'Events', 'State', '']}>
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
                  Deliveries
                </button>
                {full && (
                  <button
                    type="button"
                    onClick={() =>
                      void act(
                        'Not changed',
                        () => api(token, 'PATCH', `/api/webhooks/${h.id}`, { enabled: !h.enabled }),
                        `${h.url} ${h.enabled ? 'disabled' : 'enabled'}.`,
                      )
                    }
                  >
                    {h.enabled ? 'Disable' : 'Enable'}
                  </button>
                )}
                {full && (
                  <DangerButton label={`Delete the webhook to ${h.url}`} onClick={() => setRemoving(h)}>
                    Delete
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
        title="Delete this webhook?"
        word="delete"
        action="Delete webhook"
        onClose={() => setRemoving(null)}
        onConfirm={(h) => {
          if (shown === h.id) setShown(null);
          void act('Not deleted', () => api(token, 'DELETE', `/api/webhooks/${h.id}`), `The webhook to ${h.url} was deleted.`);
        }}
      >
        <p>{removing?.url} gets no more events, and its delivery history goes with it.</p>
      </ConfirmRecord>
      {full && (
        <>
          <h2 id="new-webhook-h">New webhook</h2>
          <Form class="form" aria-labelledby="new-webhook-h" onSubmit={() => void create()}>
            <label>
              URL <input type="url" value={url} required maxLength={2048} onInput={(e) => setUrl(e.currentTarget.value)} />
            </label>
            <label>
              Description <input value={description} maxLength={500} onInput={(e) => setDescription(e.currentTarget.value)} />
            </label>
            <fieldset class="checks">
              <legend>Events</legend>
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
                Create webhook
              </button>
            </div>
          </Form>
        </>
      )}
    </>
  );
}
