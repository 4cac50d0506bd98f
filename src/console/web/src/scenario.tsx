/**
 * The emergency scenario in force (issue #36 item 3), under the header on every page of a location: read from
 * GET /api/me when the page opens and every 10 s, so a lockdown started elsewhere (API, another console) shows
 * here. A full token may release it from the banner, and start one from the Commands page (ScenarioControls).
 */
import { useEffect, useState } from 'preact/hooks';
import { api, type Session } from './api.js';
import type { Command, Me } from './api-types.js';
import { ConfirmRecord, DangerButton, errorText, Notice } from './ui.js';
import { t, useLanguage } from './i18n/index.js';

type Scenario = NonNullable<Me['scenario']>;

const REFRESH_MS = 10_000;
/** What a scenario in force means, in the current language. */
const inForce = (name: Scenario['name']): string => t(`scenario.${name}InForce`);

export function ScenarioBanner({ session, zone }: { session: Extract<Session, { kind: 'location' }>; zone: string }) {
  const language = useLanguage();
  const [scenario, setScenario] = useState<Scenario | null>(session.me.scenario ?? null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const load = async () => {
    try {
      setScenario((await api<Me>(session.token, 'GET', '/api/me')).scenario ?? null);
    } catch {
      // The next refresh tries again; the banner keeps what it last knew.
    }
  };
  useEffect(() => {
    void load();
    const timer = setInterval(() => void load(), REFRESH_MS);
    const now = () => void load();
    addEventListener(SCENARIO_EVENT, now);
    return () => {
      clearInterval(timer);
      removeEventListener(SCENARIO_EVENT, now);
    };
  }, [session.token]);
  if (!scenario) return null;
  const since = new Date(scenario.since).toLocaleString(language === 'en' ? 'en-GB' : language, { timeZone: zone });
  const release = async () => {
    setBusy(true);
    setError(null);
    try {
      await api(session.token, 'DELETE', `/api/scenarios/${scenario.name}`);
      await load();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div class="scenario" role="alert" data-scenario={scenario.name}>
      <strong>{inForce(scenario.name)}</strong> <span>{t('scenario.since', { time: since })}</span>
      {session.me.token?.scope === 'full' && (
        <button type="button" onClick={() => void release()} disabled={busy}>
          {busy ? t('scenario.releasing') : t(`scenario.release.${scenario.name}`)}
        </button>
      )}
      {error && <span class="scenario-error"> {error}</span>}
    </div>
  );
}

/** Fired on window when this console started or released a scenario: the banner reads /api/me at once. */
export const SCENARIO_EVENT = 'biogate:scenario';

interface Start {
  name: Scenario['name'];
  word: string;
  label: string;
  text: string;
}
/** The scenarios a console starts, in the current language (the typed word too). */
const starts = (): readonly Start[] =>
  (['lockdown', 'evacuate'] as const).map((name) => ({
    name,
    word: t(`scenario.${name}Word`),
    label: t(`scenario.${name}Label`),
    text: t(`scenario.${name}Text`),
  }));

/** Starting a scenario from the console (full tokens): a typed confirmation, then the parent command's outcome. */
export function ScenarioControls({ session }: { session: Extract<Session, { kind: 'location' }> }) {
  useLanguage();
  const [pending, setPending] = useState<Start | null>(null);
  const [message, setMessage] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null);
  if (session.me.token?.scope !== 'full') return null;
  const start = async (s: Start) => {
    try {
      const parent = await api<Command>(session.token, 'POST', `/api/scenarios/${s.name}`);
      const targets = parent.targets;
      const values = { id: parent.id, queued: targets?.queued ?? 0 };
      setMessage({
        kind: 'ok',
        text: targets?.unsupported
          ? t(`scenario.startedPartly.${s.name}`, { ...values, unsupported: targets.unsupported })
          : t(`scenario.started.${s.name}`, values),
      });
    } catch (err) {
      setMessage({ kind: 'error', text: errorText(err) });
    }
    dispatchEvent(new Event(SCENARIO_EVENT));
  };
  return (
    <section aria-labelledby="scenarios-title" class="scenarios">
      <h2 id="scenarios-title">{t('scenario.title')}</h2>
      {message && <Notice kind={message.kind}>{message.text}</Notice>}
      <div class="row-actions">
        {starts().map((s) => (
          <DangerButton key={s.name} label={s.label} onClick={() => setPending(s)}>
            {s.label}
          </DangerButton>
        ))}
      </div>
      <ConfirmRecord
        pending={pending}
        title={pending?.label ?? ''}
        word={pending?.word ?? ''}
        action={pending?.label ?? ''}
        onClose={() => setPending(null)}
        onConfirm={(s) => void start(s)}
      >
        <p>{pending?.text}</p>
      </ConfirmRecord>
    </section>
  );
}
