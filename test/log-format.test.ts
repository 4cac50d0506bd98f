// Logs (issue #19): human-readable on a terminal, JSON on a pipe (BIOGATE_LOG_FORMAT forces either),
// and one info access-log line per API request with method, route pattern, status, duration and
// location — never the token; device polls are not logged at info.
// The terminal is a real pseudo-TTY made by `script` (util-linux), around a real `biogate serve`.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { bearer, fetchJson, logCapture, startApp, tempDir } from './helpers/app.js';

const CLI_JS = join(process.cwd(), 'dist', 'src', 'cli.js');
const noDist = existsSync(CLI_JS) ? false : `${CLI_JS} is missing: run "npx tsc -p tsconfig.json" (npm test does) first`;
const noScript =
  spawnSync('script', ['--version'], { stdio: 'ignore' }).status === 0 ? false : 'script (util-linux) is not installed: no pseudo-TTY';
/** An ANSI colour sequence (ESC [ … m). */
const ANSI = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`);
const stripAnsi = (s: string) => s.replace(new RegExp(ANSI.source, 'g'), '');

interface Served {
  readonly output: string;
  readonly token: string;
}

/**
 * Runs `biogate serve` (in a pseudo-TTY when `tty`), makes an authenticated API request, an
 * unauthenticated one and a device poll, stops it, and returns everything it wrote.
 */
async function serveAndCall(t: Test, tty: boolean, extraEnv: Record<string, string> = {}): Promise<Served> {
  const dir = await tempDir(t);
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('BIOGATE_')));
  const env = {
    ...clean,
    BIOGATE_STORE: `sqlite:${join(dir, 'b.db')}`,
    BIOGATE_PORT: '0',
    BIOGATE_HOST: '127.0.0.1',
    BIOGATE_SHUTDOWN_DRAIN_S: '0',
    ...extraEnv,
  };
  const cmd = `${JSON.stringify(process.execPath)} ${JSON.stringify(CLI_JS)} serve`;
  // `script -qefc CMD /dev/null`: CMD runs with a pseudo-terminal as stdin/stdout/stderr; script copies it to our pipe.
  const child = tty
    ? spawn('script', ['-qefc', cmd, '/dev/null'], { env, stdio: ['pipe', 'pipe', 'pipe'], detached: true })
    : spawn(process.execPath, [CLI_JS, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) process.kill(-(child.pid as number), 'SIGTERM');
    await exited;
  };
  t.teardown(stop);
  let url = '';
  for (let i = 0; i < 200 && !url; i++) {
    url = /BioGate listening on (http:\/\/\S+) /.exec(stripAnsi(output))?.[1] ?? '';
    if (!url) await new Promise((r) => setTimeout(r, 100));
  }
  if (!url) throw new Error(`serve did not start: ${output}`);
  const token = /\b(bg_[A-Za-z0-9_-]+)/.exec(output)?.[1] ?? '';
  t.equal((await fetch(`${url}/api/me`, { headers: bearer(token) })).status, 200);
  t.equal((await fetch(`${url}/api/users`)).status, 401);
  await fetch(`${url}/iclock/getrequest?SN=LOGTEST1`);
  await new Promise((r) => setTimeout(r, 300)); // the access log is written after the response
  await stop();
  return { output, token };
}

t.test('on a pseudo-TTY: human-readable, coloured lines; the access log is one of them', { skip: noDist || noScript }, async (t) => {
  const { output, token } = await serveAndCall(t, true);
  t.match(output, ANSI, 'colours');
  const lines = stripAnsi(output).split(/\r?\n/);
  t.notOk(
    lines.some((l) => l.startsWith('{"level"')),
    'no JSON lines',
  );
  t.ok(
    lines.some((l) => /^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}\] INFO: listening /.test(l)),
    'timestamped INFO lines',
  );
  const access = lines.filter((l) => /INFO: (GET|POST) \/api\//.test(l));
  t.equal(access.length, 2, access.join('\n'));
  t.match(
    access[0],
    /INFO: GET \/api\/me 200 \{"reqId":"[^"]+","method":"GET","route":"\/api\/me","status":200,"ms":[\d.]+,"location":1\}/,
  );
  t.match(access[1], /INFO: GET \/api\/users 401 /);
  t.notMatch(output, /getrequest/, 'device polls are not logged at info');
  // The terminal's first contact and presence are operator lines (src/ops/activity-log.ts); its polls are not.
  const aboutTerminal = output.split('\n').filter((l) => l.includes('LOGTEST1'));
  t.ok(aboutTerminal.length > 0 && aboutTerminal.every((l) => /unknown device registered|device online/.test(l)), aboutTerminal.join('\n'));
  t.equal(output.split(token).length, 2, 'the token appears once: in the bootstrap banner, never in a log line');
});

t.test('on a pipe: one JSON object per line', { skip: noDist }, async (t) => {
  const { output } = await serveAndCall(t, false);
  t.notMatch(output, ANSI);
  const json = output
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  t.ok(json.some((l) => l['msg'] === 'listening'));
  t.match(
    json.find((l) => l['route'] === '/api/me'),
    { level: 'info', method: 'GET', status: 200, location: 1, msg: 'GET /api/me 200' },
  );
});

t.test('BIOGATE_LOG_FORMAT forces the format either way', { skip: noDist || noScript }, async (t) => {
  const ttyJson = await serveAndCall(t, true, { BIOGATE_LOG_FORMAT: 'json' });
  t.match(ttyJson.output, /^\{"level":"info",/m, 'JSON on a terminal when asked');
  t.notMatch(ttyJson.output, ANSI);
  const pipePretty = await serveAndCall(t, false, { BIOGATE_LOG_FORMAT: 'pretty' });
  t.match(stripAnsi(pipePretty.output), /INFO: GET \/api\/me 200/, 'lines on a pipe when asked');
});

t.test('access-log fields: route pattern (not the path), status, duration, location; no token; no device polls', async (t) => {
  const logs = logCapture();
  const app = await startApp(t, { logs });
  const created = await fetchJson(`${app.url}/api/users`, {
    method: 'POST',
    headers: { ...bearer(app.token), 'content-type': 'application/json' },
    body: JSON.stringify({ pin: 4711, first_name: 'Ann' }),
  });
  t.equal(created.res.status, 201);
  t.equal((await fetch(`${app.url}/api/users/4711`, { headers: bearer(app.token) })).status, 200);
  t.equal((await fetch(`${app.url}/api/users/4712`, { headers: bearer(app.token) })).status, 404);
  t.equal((await fetch(`${app.url}/api/users/4711`, { headers: bearer('bg_not-a-real-token-0000000000') })).status, 401);
  await fetch(`${app.url}/iclock/cdata?SN=ACC1&options=all&pushver=2.4.1`);
  await fetch(`${app.url}/iclock/getrequest?SN=ACC1`);
  await fetch(`${app.url}/healthz`);
  await new Promise((r) => setTimeout(r, 50));
  const access = logs.entries().filter((e) => typeof e['route'] === 'string' && e['level'] === 'info');
  t.same(
    access.map((e) => [e['method'], e['route'], e['status'], e['location']]),
    [
      ['POST', '/api/users', 201, app.locationId],
      ['GET', '/api/users/:pin', 200, app.locationId],
      ['GET', '/api/users/:pin', 404, app.locationId],
      ['GET', '/api/users/:pin', 401, undefined],
    ],
  );
  for (const e of access) {
    t.type(e['ms'], 'number');
    t.match(e['reqId'], /\S/);
    t.equal(e['path'], undefined, 'the path (PINs, serials) is not logged, the pattern is');
  }
  t.notMatch(logs.text(), app.token, 'never the token');
  t.notMatch(logs.text(), /bg_not-a-real-token/, 'never a presented token either');
});
