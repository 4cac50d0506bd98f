/**
 * The BioGate console: sign-in, then the location view (location token) or the admin
 * view (admin token). Everything goes through the public API and /api/stream with that token.
 */
import { ScenarioBanner } from './scenario.js';
import { render, type ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { LocationsPage, TokensPage } from './admin.js';
import { UnassignedPage } from './unassigned.js';
import { AccessLevelsPage } from './access-levels.js';
import { AreasPage } from './areas.js';
import { loadSession, saveSession, signIn, UNAUTHORIZED_EVENT, type Session } from './api.js';
import { AttendancePage } from './attendance.js';
import { DashboardPage } from './dashboard.js';
import { DoorsPage } from './doors.js';
import { WebhooksPage } from './webhooks.js';
import { TimeCardsPage } from './time-cards.js';
import { CommandsPage } from './commands.js';
import { DevicePage } from './device.js';
import { DevicesPage } from './devices.js';
import { AlertsPage } from './alerts.js';
import { HistoryPage } from './history.js';
import { BASE, navigate, onLinkClick, usePath } from './router.js';
import { SchedulesPage } from './schedules.js';
import { SyncPage } from './sync.js';
import { UsersPage } from './users.js';
import { errorText, Notice } from './ui.js';
import { followTheme, ThemeSwitch } from './theme.js';
import { followLanguage, LanguageSwitch, t, useLanguage, type MessageId } from './i18n/index.js';
import { labelTableCells } from './reflow.js';

function SignIn({ onSession, reason }: { onSession: (s: Session) => void; reason: string | null }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | null>(reason);
  const [busy, setBusy] = useState(false);
  return (
    <main id="main" class="signin">
      <h1 tabIndex={-1}>{t('signIn.title')}</h1>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          setBusy(true);
          setError(null);
          signIn(token.trim()).then(
            (s) => {
              saveSession(s);
              onSession(s);
              navigate(s.kind === 'admin' ? '/admin/locations' : '/devices');
            },
            (err: unknown) => {
              setError(errorText(err));
              setBusy(false);
            },
          );
        }}
      >
        <label>
          {t('signIn.token')}
          <input
            type="password"
            value={token}
            required
            autoComplete="off"
            spellcheck={false}
            onInput={(e) => setToken(e.currentTarget.value)}
            aria-describedby="token-help"
          />
        </label>
        <p id="token-help" class="hint">
          {t('signIn.help')}
        </p>
        {error && <Notice kind="error">{error}</Notice>}
        <button type="submit" class="primary" disabled={busy || token.trim() === ''}>
          {busy ? t('signIn.busy') : t('signIn.submit')}
        </button>
      </form>
    </main>
  );
}

interface NavItem {
  readonly path: string;
  readonly label: MessageId;
}

const LOCATION_NAV: readonly NavItem[] = [
  { path: '/dashboard', label: 'nav.dashboard' },
  { path: '/devices', label: 'nav.devices' },
  { path: '/sync', label: 'nav.sync' },
  { path: '/users', label: 'nav.users' },
  { path: '/areas', label: 'nav.areas' },
  { path: '/schedules', label: 'nav.schedules' },
  { path: '/access-levels', label: 'nav.accessLevels' },
  { path: '/commands', label: 'nav.commands' },
  { path: '/attendance', label: 'nav.attendance' },
  { path: '/doors', label: 'nav.doors' },
  { path: '/time-cards', label: 'nav.timeCards' },
  { path: '/alerts', label: 'nav.alerts' },
  { path: '/webhooks', label: 'nav.webhooks' },
  { path: '/history', label: 'nav.history' },
];
const ADMIN_NAV: readonly NavItem[] = [
  { path: '/admin/locations', label: 'nav.locations' },
  { path: '/admin/tokens', label: 'nav.tokens' },
  { path: '/admin/unassigned', label: 'nav.unassigned' },
];

function Shell({
  title,
  nav,
  path,
  onSignOut,
  banner,
  children,
}: {
  title: string;
  nav: readonly NavItem[];
  path: string;
  onSignOut: () => void;
  banner?: ComponentChildren;
  children: ComponentChildren;
}) {
  return (
    <>
      <a class="skip" href="#main">
        {t('shell.skip')}
      </a>
      <header class="top">
        <span class="brand">BioGate</span>
        <span class="where">{title}</span>
        <nav aria-label={t('nav.main')}>
          <ul>
            {nav.map((n) => (
              <li key={n.path}>
                <a href={BASE + n.path} aria-current={path === n.path || path.startsWith(`${n.path}/`) ? 'page' : undefined}>
                  {t(n.label)}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <ThemeSwitch />
        <LanguageSwitch />
        <button type="button" class="signout" onClick={onSignOut}>
          {t('shell.signOut')}
        </button>
      </header>
      {banner}
      <main id="main">{children}</main>
    </>
  );
}

function App() {
  useLanguage(); // every message on screen in the language chosen now
  const [session, setSession] = useState<Session | null>(loadSession);
  const [reason, setReason] = useState<string | null>(null);
  const path = usePath();
  const signOut = (why: string | null = null) => {
    saveSession(null);
    setSession(null);
    setReason(why);
    navigate('/');
  };
  useEffect(() => {
    const expired = (e: Event) => signOut(t('signIn.expired', { reason: (e as CustomEvent<string>).detail }));
    addEventListener(UNAUTHORIZED_EVENT, expired);
    return () => removeEventListener(UNAUTHORIZED_EVENT, expired);
  }, []);
  if (!session) return <SignIn onSession={setSession} reason={reason} />;

  if (session.kind === 'admin') {
    const page = path.startsWith('/admin/tokens') ? (
      <TokensPage token={session.token} />
    ) : path.startsWith('/admin/unassigned') ? (
      <UnassignedPage token={session.token} />
    ) : (
      <LocationsPage token={session.token} />
    );
    return (
      <Shell title={t('shell.admin')} nav={ADMIN_NAV} path={path} onSignOut={() => signOut()}>
        {page}
      </Shell>
    );
  }
  const zone = session.me.timezone || 'UTC';
  const device = /^\/devices\/([^/]+)$/.exec(path);
  let page;
  if (device) page = <DevicePage session={session} zone={zone} sn={decodeURIComponent(device[1] as string)} />;
  else if (path === '/sync') page = <SyncPage session={session} zone={zone} />;
  else if (path.startsWith('/dashboard')) page = <DashboardPage session={session} zone={zone} />;
  else if (path.startsWith('/users')) page = <UsersPage session={session} />;
  else if (path.startsWith('/areas')) page = <AreasPage session={session} />;
  else if (path.startsWith('/schedules')) page = <SchedulesPage session={session} />;
  else if (path.startsWith('/access-levels')) page = <AccessLevelsPage session={session} />;
  else if (path.startsWith('/commands')) page = <CommandsPage session={session} zone={zone} />;
  else if (path.startsWith('/attendance')) page = <AttendancePage session={session} zone={zone} />;
  else if (path.startsWith('/doors')) page = <DoorsPage session={session} zone={zone} />;
  else if (path.startsWith('/time-cards')) page = <TimeCardsPage session={session} zone={zone} />;
  else if (path.startsWith('/alerts')) page = <AlertsPage session={session} zone={zone} />;
  else if (path.startsWith('/webhooks')) page = <WebhooksPage session={session} zone={zone} />;
  else if (path.startsWith('/history')) page = <HistoryPage session={session} zone={zone} />;
  else page = <DevicesPage session={session} zone={zone} />;
  const scope = session.me.token?.scope;
  return (
    <Shell
      title={scope ? t('shell.where', { location: session.me.name, scope }) : session.me.name}
      nav={LOCATION_NAV}
      path={path}
      onSignOut={() => signOut()}
      banner={<ScenarioBanner session={session} zone={zone} />}
    >
      {page}
    </Shell>
  );
}

document.addEventListener('click', onLinkClick);
const root = document.getElementById('app');
if (root) {
  root.textContent = '';
  followTheme();
  followLanguage();
  render(<App />, root);
  labelTableCells(root);
}
