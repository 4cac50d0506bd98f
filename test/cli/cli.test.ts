/**
 * The `biogate` CLI contract [API-CONTRACT §4, README "Locations and tokens"]:
 * commands run against the same SQLite file as a running server, whose API sees
 * their effects at once; bad flags exit 2, failed operations exit 1, and neither
 * writes anything. The last tests spawn the built executable.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { bearer, fetchJson, freePort, startApp, tempDir, TEST_STORE, within, type StartedApp, type Teardown } from '../helpers/app.js';
import { cli } from '../helpers/cli.js';

const TOKEN = /^bg_[A-Za-z0-9_-]{32}$/;
const ISO_MS_Z = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

async function apiMe(s: StartedApp, token: string) {
  return fetchJson(`${s.url}/api/me`, { headers: bearer(token) });
}

/**
 * GET /api/me once the gateway has the CLI's change: on SQLite at once (the gateway looks at the
 * shared file before trusting what it keeps of tokens and locations); on MongoDB as soon as the
 * change stream brings the CLI's event (milliseconds), so the call is repeated for up to 3 s until
 * `settled` holds.
 */
async function apiMeAfterCli(s: StartedApp, token: string, settled: (r: Awaited<ReturnType<typeof apiMe>>) => boolean) {
  const deadline = Date.now() + (TEST_STORE === 'sqlite' ? 0 : 3_000);
  for (;;) {
    const r = await apiMe(s, token);
    if (settled(r) || Date.now() >= deadline) return r;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

t.test('location and token round trip against a running server', async (t) => {
  const s = await startApp(t);
  const env = { BIOGATE_STORE: s.storeUrl };

  // location create --json prints exactly {"location", "token"}
  const created = await cli(['location', 'create', '--name', 'Berlin Office', '--timezone', 'Europe/Berlin', '--json'], env);
  t.equal(created.code, 0);
  t.equal(created.stderr, '');
  t.ok(created.stdout.endsWith('}\n'), 'one JSON document and a newline');
  const out = JSON.parse(created.stdout) as { location: Record<string, unknown>; token: string };
  t.strictSame(Object.keys(out).sort(), ['location', 'token']);
  t.match(out.token, TOKEN);
  const id = out.location['id'] as number;
  t.strictSame(Object.keys(out.location).sort(), [
    'attendance_debounce_s',
    'attendance_photo_retention_days',
    'attendance_photos',
    'created_at',
    'day_start_hour',
    'devices_count',
    'id',
    'is_active',
    'name',
    'require_comm_key',
    'scenario',
    'timezone',
    'updated_at',
    'users_count',
  ]);
  t.match(out.location, {
    name: 'Berlin Office',
    timezone: 'Europe/Berlin',
    is_active: true,
    users_count: 0,
    devices_count: 0,
    updated_at: null,
  });
  t.match(out.location['created_at'], ISO_MS_Z);

  // ...and that token works on the running server, which returns the same Location.
  const me = await apiMe(s, out.token);
  t.equal(me.res.status, 200);
  const { token: caller, device_connection: _connection, ...location } = me.body as Record<string, unknown>;
  t.strictSame(location, out.location, 'the CLI prints the Location the API returns');
  t.match(caller, { scope: 'full', expires_at: null }, '/api/me also names the calling token');

  // token create --json prints {"id", "token", "location_id", "scope", "expires_at"}
  const issued = await cli(['token', 'create', '--location', String(id), '--json'], env);
  t.equal(issued.code, 0);
  t.equal(issued.stderr, '');
  const tok = JSON.parse(issued.stdout) as { id: number; token: string; location_id: number; scope: string; expires_at: string | null };
  t.strictSame(Object.keys(tok), ['id', 'token', 'location_id', 'scope', 'expires_at']);
  t.ok(Number.isInteger(tok.id) && tok.id > 0);
  t.match(tok.token, TOKEN);
  t.not(tok.token, out.token);
  t.equal(tok.location_id, id);
  t.equal(tok.scope, 'full');
  t.equal(tok.expires_at, null);
  t.equal((await apiMe(s, tok.token)).res.status, 200);

  const before = Date.now();
  const expiring = await cli(['token', 'create', '--location', String(id), '--expires-in', '30', '--scope', 'read', '--json'], env);
  t.equal(expiring.code, 0);
  const exp = JSON.parse(expiring.stdout) as { scope: string; expires_at: string };
  t.equal(exp.scope, 'read');
  const expiresMs = Date.parse(exp.expires_at) - 30 * 86_400_000;
  t.ok(expiresMs >= before - 1000 && expiresMs <= Date.now() + 1000, 'expires 30 days from now');

  // token list never shows a secret
  const listed = await cli(['token', 'list', '--location', String(id), '--json'], env);
  t.equal(listed.code, 0);
  const tokens = JSON.parse(listed.stdout) as Record<string, unknown>[];
  t.equal(tokens.length, 3);
  for (const row of tokens)
    t.strictSame(Object.keys(row).sort(), ['created_at', 'expires_at', 'id', 'label', 'location_id', 'revoked_at', 'scope']);
  for (const secret of [out.token, tok.token]) t.notOk(listed.stdout.includes(secret), 'no token text in the listing');

  // token revoke → 401
  const revoked = await cli(['token', 'revoke', '--id', String(tok.id)], env);
  t.equal(revoked.code, 0);
  t.match(revoked.stdout, new RegExp(`^Token ${tok.id} revoked at \\d{4}-\\d{2}-\\d{2}T[\\d:.]+Z\\.\\n$`));
  const after = await apiMeAfterCli(s, tok.token, (r) => r.res.status === 401);
  t.equal(after.res.status, 401);
  t.strictSame(after.body, { detail: 'Token revoked', code: 'UNAUTHORIZED' });
  t.equal((await apiMe(s, out.token)).res.status, 200, 'the other token still works');

  // disable → 403, enable → 200
  const disabled = await cli(['location', 'disable', '--id', String(id)], env);
  t.equal(disabled.code, 0);
  t.equal(disabled.stdout, `Location ${id} "Berlin Office" disabled.\n`);
  const off = await apiMeAfterCli(s, out.token, (r) => r.res.status === 403);
  t.equal(off.res.status, 403);
  t.strictSame(off.body, { detail: `Location ${id} is disabled`, code: 'LOCATION_DISABLED' });
  const enabled = await cli(['location', 'enable', '--id', String(id)], env);
  t.equal(enabled.code, 0);
  t.equal(enabled.stdout, `Location ${id} "Berlin Office" enabled.\n`);
  t.equal((await apiMeAfterCli(s, out.token, (r) => r.res.status === 200)).res.status, 200);

  // update → the API shows the new name and zone
  const updated = await cli(
    [
      'location',
      'update',
      '--id',
      String(id),
      '--name',
      'Berlin HQ',
      '--timezone',
      'America/New_York',
      '--day-start-hour',
      '6',
      '--attendance-debounce-s',
      '30',
      '--attendance-photos',
      'on',
      '--attendance-photo-retention-days',
      '14',
    ],
    env,
  );
  t.equal(updated.code, 0);
  t.equal(updated.stdout, `Updated location ${id} "Berlin HQ" (America/New_York).\n`);
  const renamed = await apiMeAfterCli(s, out.token, (r) => (r.body as { name?: string }).name === 'Berlin HQ');
  t.match(renamed.body, {
    id,
    name: 'Berlin HQ',
    timezone: 'America/New_York',
    is_active: true,
    day_start_hour: 6,
    attendance_debounce_s: 30,
    attendance_photos: true,
    attendance_photo_retention_days: 14,
  });
  t.match((renamed.body as { updated_at: string }).updated_at, ISO_MS_Z);

  // location list, JSON and text
  const all = await cli(['location', 'list', '--json'], env);
  t.equal(all.code, 0);
  const rows = JSON.parse(all.stdout) as { id: number; name: string; is_active: boolean; users_count: number; devices_count: number }[];
  t.strictSame(
    rows.map((r) => [r.id, r.name, r.is_active, r.users_count, r.devices_count]),
    [
      [s.locationId, 'Default', true, 0, 0],
      [id, 'Berlin HQ', true, 0, 0],
    ],
  );
  const text = await cli(['location', 'list'], env);
  t.equal(text.code, 0);
  t.equal(
    text.stdout,
    `${s.locationId}\tactive  \tUTC\t0 users\t0 devices\tDefault\n${id}\tactive  \tAmerica/New_York\t0 users\t0 devices\tBerlin HQ\n`,
  );
});

t.test('bad flags exit 2, failed operations exit 1; neither writes to the store', async (t) => {
  const s = await startApp(t);
  const env = { BIOGATE_STORE: s.storeUrl };
  const snapshot = async () => JSON.stringify([await s.app.locations.list(), await s.app.locations.listTokens()]);
  const before = await snapshot();

  const cases: [argv: string[], code: number, stderr: string | RegExp][] = [
    [['location', 'create', '--name', 'X', '--color', 'red'], 2, /^biogate location create: Unknown option '--color'/],
    [['location', 'create', '--name', 'X', 'extra'], 2, /^biogate location create: Unexpected argument 'extra'/],
    [['location', 'create', '--timezone', 'UTC'], 2, 'biogate location create: --name is required\n'],
    [['location', 'create', '--name', '   '], 2, 'biogate location create: --name: must be 1 to 200 characters\n'],
    [
      ['location', 'create', '--name', 'X', '--timezone', 'Mars/Olympus'],
      2,
      'biogate location create: --timezone: unknown IANA time zone "Mars/Olympus"\n',
    ],
    [['location', 'disable', '--id', 'abc'], 2, 'biogate location disable: --id must be a whole number, got "abc"\n'],
    [['location', 'enable', '--id', '1.5'], 2, 'biogate location enable: --id must be a whole number, got "1.5"\n'],
    [['location', 'enable'], 2, 'biogate location enable: --id is required\n'],
    [
      ['location', 'update', '--id', '1'],
      2,
      'biogate location update: give --name, --timezone, --require-comm-key, --attendance-debounce-s, --day-start-hour, --attendance-photos and/or --attendance-photo-retention-days\n',
    ],
    [
      ['location', 'update', '--id', '1', '--day-start-hour', '24'],
      2,
      'biogate location update: --day-start-hour must be between 0 and 23, got 24\n',
    ],
    [
      ['location', 'update', '--id', '1', '--timezone', 'Nowhere'],
      2,
      'biogate location update: --timezone: unknown IANA time zone "Nowhere"\n',
    ],
    [['token', 'create', '--location', '1', '--scope', 'admin'], 2, 'biogate token create: --scope must be one of full, operator, read\n'],
    [
      ['token', 'create', '--location', '1', '--expires-in', '0'],
      2,
      'biogate token create: --expires-in must be between 1 and 3650, got 0\n',
    ],
    [['token', 'revoke', '--id', '-3'], 2, /^biogate token revoke: /],
    [['location', 'frobnicate'], 2, /^biogate: unknown command "location frobnicate"\n\nUsage: biogate <command>/],
    [['location', 'enable', '--id', '999'], 1, 'biogate location enable: Location 999 not found (LOCATION_NOT_FOUND)\n'],
    [['location', 'update', '--id', '999', '--name', 'Y'], 1, 'biogate location update: Location 999 not found (LOCATION_NOT_FOUND)\n'],
    [['token', 'create', '--location', '999', '--json'], 1, 'biogate token create: Location 999 not found (LOCATION_NOT_FOUND)\n'],
    [['token', 'revoke', '--id', '999'], 1, 'biogate token revoke: Token 999 not found (TOKEN_NOT_FOUND)\n'],
  ];
  for (const [argv, code, stderr] of cases) {
    const r = await cli(argv, env);
    const label = argv.join(' ');
    t.equal(r.code, code, `${label}: exit ${code}`);
    t.equal(r.stdout, '', `${label}: nothing on stdout`);
    if (typeof stderr === 'string') t.equal(r.stderr, stderr, `${label}: stderr`);
    else t.match(r.stderr, stderr, `${label}: stderr`);
  }
  t.equal(await snapshot(), before, 'locations and tokens unchanged');
});

t.test('help', async (t) => {
  const r = await cli(['--help'], {});
  t.equal(r.code, 0);
  t.equal(r.stderr, '');
  t.match(r.stdout, /^Usage: biogate <command> \[flags\]\n/);
  for (const cmd of [
    'location create',
    'location list',
    'location update',
    'location disable',
    'location enable',
    'token create',
    'token list',
    'token revoke',
    'serve',
    'config',
  ]) {
    t.ok(r.stdout.includes(`  ${cmd}`), `lists ${cmd}`);
  }
});

// ---------------------------------------------------------------- the built executable

const CLI_JS = join(process.cwd(), 'dist', 'src', 'cli.js');

interface Served {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (or the signal name). */
  readonly exited: Promise<number | string>;
}

/** `node dist/src/cli.js serve` with only the given BIOGATE_* settings. */
function serve(t: Teardown, env: Record<string, string>): Served {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('BIOGATE_')));
  const child = spawn(process.execPath, [CLI_JS, 'serve'], { env: { ...clean, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Resolves once stdout has a line matching `re`, or the process exits. */
async function waitForLine(s: Served, re: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const line = s
        .stdout()
        .split('\n')
        .find((l) => re.test(l));
      if (line !== undefined) {
        s.child.stdout?.off('data', check);
        resolve(line);
      }
    };
    s.child.stdout?.on('data', check);
    void s.exited.then((code) => reject(new Error(`exited with ${code} before printing ${re}; stderr: ${s.stderr()}`)));
    check();
  });
}

const noDist = existsSync(CLI_JS) ? false : `${CLI_JS} is missing: run "npx tsc -p tsconfig.json" (npm test does) first`;

t.test('biogate serve: bootstrap token once, SIGTERM exits 0, restart prints no token', { skip: noDist }, async (t) => {
  const dir = await tempDir(t);
  const port = await freePort();
  const env = {
    BIOGATE_PORT: String(port),
    BIOGATE_HOST: '127.0.0.1',
    BIOGATE_STORE: `sqlite:${join(dir, 'biogate.db')}`,
    BIOGATE_LOG_LEVEL: 'warn',
    BIOGATE_SHUTDOWN_DRAIN_S: '0',
  };

  const first = serve(t, env);
  let mark = Date.now();
  const listening = await within(30_000, 'first start', waitForLine(first, /^BioGate listening on /));
  t.comment(`first start: ${Date.now() - mark} ms`);
  const base = `http://127.0.0.1:${port}`;
  t.equal(
    listening,
    `BioGate listening on ${base} (store: sqlite; API under /api, devices under /iclock; console ${base}/console/, API docs ${base}/api/docs)`,
  );
  const tokens = first.stdout().match(/bg_[A-Za-z0-9_-]{32}/g) ?? [];
  t.equal(tokens.length, 1, 'the bootstrap token is printed exactly once');
  t.match(first.stdout(), /BioGate bootstrap: created location "Default" \(id 1\)\./);
  t.ok(first.stdout().includes(`Console (sign in with the token): ${base}/console/`), 'the banner shows the console URL');
  t.ok(first.stdout().includes(`API reference: ${base}/api/docs`), 'the banner shows the API reference URL');
  const token = tokens[0] ?? '';
  const me = await fetchJson(`http://127.0.0.1:${port}/api/me`, { headers: bearer(token) });
  t.equal(me.res.status, 200);
  t.match(me.body, { id: 1, name: 'Default', is_active: true });

  // A second server on the same port fails cleanly, without a stack trace.
  const clash = serve(t, env);
  t.equal(await within(30_000, 'clashing start', clash.exited), 1, 'a busy port exits 1');
  t.equal(clash.stderr(), `biogate: cannot listen on 127.0.0.1:${port} (address in use or not available)\n`);
  t.equal((await fetchJson(`http://127.0.0.1:${port}/healthz`)).res.status, 200, 'the first server is unaffected');

  mark = Date.now();
  first.child.kill('SIGTERM');
  t.equal(await within(5000, 'SIGTERM exit', first.exited), 0, 'SIGTERM: exit code 0 within 5 s');
  t.comment(`SIGTERM to exit: ${Date.now() - mark} ms`);
  t.equal(first.stderr(), '', 'nothing on stderr at warn level');

  const second = serve(t, env);
  await within(30_000, 'second start', waitForLine(second, /^BioGate listening on /));
  t.notMatch(second.stdout(), /bg_|bootstrap/, 'no token on a store that has locations');
  t.equal((await fetchJson(`http://127.0.0.1:${port}/api/me`, { headers: bearer(token) })).res.status, 200, 'the first token still works');
  second.child.kill('SIGINT');
  t.equal(await within(5000, 'SIGINT exit', second.exited), 0, 'SIGINT: exit code 0 within 5 s');
});

t.test('biogate serve: invalid configuration exits 1 listing every problem', { skip: noDist }, async (t) => {
  const s = serve(t, { BIOGATE_PORT: 'abc', BIOGATE_LOG_LEVEL: 'loud', BIOGATE_STORE: 'sqlite::memory:' });
  t.equal(await within(30_000, 'config error exit', s.exited), 1);
  t.equal(s.stdout(), '');
  t.equal(
    s.stderr(),
    'biogate: invalid configuration:\n  - BIOGATE_PORT: "abc" is not a number\n  - BIOGATE_LOG_LEVEL: must be one of "fatal", "error", "warn", "info", "debug", "trace", "silent"\n',
  );
});
