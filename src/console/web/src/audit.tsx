/**
 * "Audit now" in the device page's roster sync section. POST /api/devices/{sn}/audit queues the query of
 * the terminal's user table (`load-users`) and answers it, or the audit already outstanding; the query is
 * then followed on the stream (`commands/<id>`) until it ends, and `onDone` runs once when it does. The
 * gateway compares the answer with the roster, queues the repairs and sets `last_audit_at` before it
 * announces the query's end, so what is loaded on `onDone` shows the audit.
 *
 * A `read` token may not start an audit (API-CONTRACT §4: writes need `operator` or `full`): it gets the
 * reason instead of the button.
 */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, type Session } from './api.js';
import type { Command } from './api-types.js';
import { commandAnchor } from './commands.js';
import { openStream } from './stream.js';
import { errorText, Notice } from './ui.js';
import { t, useLanguage } from './i18n/index.js';

const ENDED: ReadonlySet<Command['status']> = new Set(['success', 'failed']);
const RANK: Record<Command['status'], number> = { pending: 0, sent: 1, success: 2, failed: 2 };

/** The later of two states of the same command: an answer that crossed a newer stream event does not step it back. */
const later = (held: Command | null, next: Command): Command =>
  held === null || held.id !== next.id || RANK[next.status] >= RANK[held.status] ? next : held;

/** A message's text with the link `ref` where its `{ref}` placeholder stands (the link is not a string). */
const REF = '\u0000';
function withRef(text: string, ref: ComponentChildren): ComponentChildren {
  const [before, after] = text.split(REF);
  return (
    <>
      {before}
      {ref}
      {after}
    </>
  );
}

function AuditNotice({ command }: { command: Command }) {
  useLanguage();
  const ref = (
    <a href={`#${commandAnchor(command.id)}`} data-audit-command={command.id}>
      {t('audit.command', { id: String(command.id) })}
    </a>
  );
  const values = { ref: REF, command: command.command };
  if (command.status === 'success') return <Notice kind="ok">{withRef(t('audit.done', values), ref)}</Notice>;
  if (command.status === 'failed')
    return (
      <Notice kind="error">
        {withRef(
          command.error_message ? t('audit.failed', { ...values, error: command.error_message }) : t('audit.failedBare', values),
          ref,
        )}
      </Notice>
    );
  return <Notice kind="info">{withRef(t('audit.started', { ...values, status: t(`status.${command.status}`) }), ref)}</Notice>;
}

export function AuditControl({ session, sn, onDone }: { session: Session & { kind: 'location' }; sn: string; onDone: () => void }) {
  useLanguage();
  const [command, setCommand] = useState<Command | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const done = useRef(onDone);
  done.current = onDone;
  useEffect(() => {
    setCommand(null);
    setError(null);
  }, [sn]);

  const id = command?.id;
  const ended = command !== null && ENDED.has(command.status);
  useEffect(() => {
    if (id === undefined || ended) return;
    const follow = (c: Command | null | undefined) => c && c.id === id && setCommand((held) => later(held, c));
    return openStream({
      token: session.token,
      topics: [`commands/${id}`],
      onMessage: (m) => follow(m.payload as Command | null),
      // Subscribed: the query may have ended before the subscription, so its state is read once.
      onState: (s) => {
        if (s === 'live') api<Command>(session.token, 'GET', `/api/commands/${id}`).then(follow, () => undefined);
      },
    });
  }, [session.token, id, ended]);
  useEffect(() => {
    if (ended) done.current();
  }, [id, ended]);

  if (session.me.token?.scope === 'read') return <p class="hint audit-read-only">{t('audit.readOnly')}</p>;

  const start = async () => {
    setBusy(true);
    setError(null);
    try {
      const c = await api<Command>(session.token, 'POST', `/api/devices/${encodeURIComponent(sn)}/audit`);
      setCommand((held) => later(held, c));
    } catch (err) {
      setError(t('audit.error', { error: errorText(err) }));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="audit">
      <p class="hint" id="audit-hint">
        {t('audit.hint')}
      </p>
      <div class="buttons">
        <button type="button" aria-describedby="audit-hint" disabled={busy} onClick={() => void start()}>
          {t('audit.now')}
        </button>
      </div>
      {error && <Notice kind="error">{error}</Notice>}
      {command && <AuditNotice command={command} />}
    </div>
  );
}
