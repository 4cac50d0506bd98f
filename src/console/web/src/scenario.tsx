/**
 * The emergency scenario in force (issue #36 item 3), under the header on every page of a location: read from
 * GET /api/me when the page opens and every 10 s, so a lockdown started elsewhere (API, another console) shows
 * here. A full token may release it from the banner.
 */
import { useEffect, useState } from 'preact/hooks';
import { api, type Session } from './api.js';
import type { Me } from './api-types.js';
import { errorText } from './ui.js';

type Scenario = NonNullable<Me['scenario']>;

const REFRESH_MS = 10_000;
const WORDS: Record<Scenario['name'], string> = {
  lockdown: 'Lockdown in force: doors are locked and normal-open schedules are suspended',
  evacuate: 'Evacuation in force: doors are open',
};

export function ScenarioBanner({ session, zone }: { session: Extract<Session, { kind: 'location' }>; zone: string }) {
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
    return () => clearInterval(timer);
  }, [session.token]);
  if (!scenario) return null;
  const since = new Date(scenario.since).toLocaleString('en-GB', { timeZone: zone });
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
      <strong>{WORDS[scenario.name]}</strong> <span>since {since}.</span>
      {session.me.token?.scope === 'full' && (
        <button type="button" onClick={() => void release()} disabled={busy}>
          {busy ? 'Releasing…' : `Release ${scenario.name}`}
        </button>
      )}
      {error && <span class="scenario-error"> {error}</span>}
    </div>
  );
}
