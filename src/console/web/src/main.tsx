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
import { DoorsPage } from './doors.js';
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
import { labelTableCells } from './reflow.js';

function SignIn({ onSession, reason }: { onSession: (s: Session) => void; reason: string | null }) {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | null>(reason);
  const [busy, setBusy] = useState(false);
  return (
    <main id="main" class="signin">
      <h1 tabIndex={-1}>BioGate console</h1>
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
          API token
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
          A location token (<code>bg_…</code>) opens that location; the admin token opens the admin view. It is kept in this tab only and
          forgotten when the tab closes.
        </p>
        {error && <Notice kind="error">{error}</Notice>}
        <button type="submit" class="primary" disabled={busy || token.trim() === ''}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </main>
  );
}

interface NavItem {
  readonly path: string;
  readonly label: string;
}

const LOCATION_NAV: readonly NavItem[] = [
  { path: '/devices', label: 'Devices' },
  { path: '/sync', label: 'Sync' },
  { path: '/users', label: 'Users' },
  { path: '/areas', label: 'Areas' },
  { path: '/schedules', label: 'Schedules' },
  { path: '/access-levels', label: 'Access levels' },
  { path: '/commands', label: 'Commands' },
  { path: '/attendance', label: 'Attendance' },
  { path: '/doors', label: 'Doors' },
  { path: '/time-cards', label: 'Time cards' },
  { path: '/alerts', label: 'Alerts' },
  { path: '/history', label: 'History' },
];
const ADMIN_NAV: readonly NavItem[] = [
  { path: '/admin/locations', label: 'Locations' },
  { path: '/admin/tokens', label: 'Tokens' },
  { path: '/admin/unassigned', label: 'Unassigned terminals' },
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
        Skip to content
      </a>
      <header class="top">
        <span class="brand">BioGate</span>
        <span class="where">{title}</span>
        <nav aria-label="Main">
          <ul>
            {nav.map((n) => (
              <li key={n.path}>
                <a href={BASE + n.path} aria-current={path === n.path || path.startsWith(`${n.path}/`) ? 'page' : undefined}>
                  {n.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <ThemeSwitch />
        <button type="button" class="signout" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      {banner}
      <main id="main">{children}</main>
    </>
  );
}

function App() {
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
    const expired = (e: Event) => signOut(`Signed out: ${(e as CustomEvent<string>).detail}`);
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
      <Shell title="Administration" nav={ADMIN_NAV} path={path} onSignOut={() => signOut()}>
        {page}
      </Shell>
    );
  }
  const zone = session.me.timezone || 'UTC';
  const device = /^\/devices\/([^/]+)$/.exec(path);
  let page;
  if (device) page = <DevicePage session={session} zone={zone} sn={decodeURIComponent(device[1] as string)} />;
  else if (path === '/sync') page = <SyncPage session={session} zone={zone} />;
  else if (path.startsWith('/users')) page = <UsersPage session={session} />;
  else if (path.startsWith('/areas')) page = <AreasPage session={session} />;
  else if (path.startsWith('/schedules')) page = <SchedulesPage session={session} />;
  else if (path.startsWith('/access-levels')) page = <AccessLevelsPage session={session} />;
  else if (path.startsWith('/commands')) page = <CommandsPage session={session} zone={zone} />;
  else if (path.startsWith('/attendance')) page = <AttendancePage session={session} zone={zone} />;
  else if (path.startsWith('/doors')) page = <DoorsPage session={session} zone={zone} />;
  else if (path.startsWith('/time-cards')) page = <TimeCardsPage session={session} zone={zone} />;
  else if (path.startsWith('/alerts')) page = <AlertsPage session={session} zone={zone} />;
  else if (path.startsWith('/history')) page = <HistoryPage session={session} zone={zone} />;
  else page = <DevicesPage session={session} zone={zone} />;
  const scope = session.me.token?.scope;
  return (
    <Shell
      title={`${session.me.name}${scope ? ` · ${scope} token` : ''}`}
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
  render(<App />, root);
  labelTableCells(root);
}
