/**
 * Choosing the HTTP engine (issue #19, BIOGATE_HTTP_ENGINE=auto|uws|node): forced and automatic
 * choices, the fallback when uWebSockets.js cannot load (UWS_USE_FALLBACK=1 stands for a Node
 * whose ABI has no binary: src/http/uws.ts refuses to load then), the startup log line, the
 * /metrics series, the config error for a bad value, and `biogate doctor`'s wording.
 */
import t from 'tap';
import { ConfigError, loadConfig } from '../../src/config/load.js';
import { checkHttpEngine } from '../../src/doctor/checks.js';
import { resolveHttpEngine } from '../../src/http/engine.js';
import { loadUws, UwsUnavailableError } from '../../src/http/uws.js';
import { ADMIN_TOKEN, logCapture, startApp } from '../helpers/app.js';

let uwsLoads = true;
try {
  loadUws();
} catch {
  uwsLoads = false;
}
const needsUws = { skip: !uwsLoads && `uWebSockets.js does not load on Node ${process.versions.node}` };

/** Runs `f` as if on a Node where the uWS binary cannot load. */
async function withoutUws<T>(f: () => Promise<T> | T): Promise<T> {
  const before = process.env['UWS_USE_FALLBACK'];
  process.env['UWS_USE_FALLBACK'] = '1';
  try {
    return await f();
  } finally {
    if (before === undefined) delete process.env['UWS_USE_FALLBACK'];
    else process.env['UWS_USE_FALLBACK'] = before;
  }
}

t.test('forced choices are taken as they are; auto takes uws where it loads', needsUws, async (t) => {
  t.match(resolveHttpEngine('node'), { engine: 'node', fallback: false, reason: 'BIOGATE_HTTP_ENGINE=node' });
  t.match(resolveHttpEngine('uws'), { engine: 'uws', fallback: false });
  t.match(resolveHttpEngine('auto'), { engine: 'uws', fallback: false, reason: /binary loads/ });
});

t.test('auto falls back to node when uWebSockets.js cannot load; uws then refuses to start, clearly', async (t) => {
  await withoutUws(() => {
    t.match(resolveHttpEngine('auto'), { engine: 'node', fallback: true, reason: 'auto: UWS_USE_FALLBACK is set' });
    t.match(resolveHttpEngine('node'), { engine: 'node', fallback: false });
    t.throws(() => resolveHttpEngine('uws'), {
      name: 'UwsUnavailableError',
      message:
        /^uWebSockets\.js native binary did not load \(UWS_USE_FALLBACK is set\), and BIOGATE_HTTP_ENGINE=uws asks for it\..*Use BIOGATE_HTTP_ENGINE=auto or node/,
    });
  });
});

t.test('BIOGATE_HTTP_ENGINE: default auto, the three values, anything else a config error naming the variable', async (t) => {
  t.equal(loadConfig({ env: {} }).httpEngine, 'auto');
  for (const value of ['auto', 'uws', 'node'] as const) t.equal(loadConfig({ env: { BIOGATE_HTTP_ENGINE: value } }).httpEngine, value);
  for (const bad of ['', 'UWS', 'express', 'node:http']) {
    const err = t.throws(() => loadConfig({ env: { BIOGATE_HTTP_ENGINE: bad } })) as unknown;
    t.ok(err instanceof ConfigError, `"${bad}": a ConfigError`);
    t.match((err as ConfigError).problems.join('\n'), /^BIOGATE_HTTP_ENGINE: /m, `"${bad}": the problem names the variable`);
  }
});

t.test('the app logs the engine once at start and exports it in /metrics', async (t) => {
  const logs = logCapture();
  const s = await startApp(t, { logs, config: { httpEngine: 'node', adminToken: ADMIN_TOKEN } });
  t.equal(s.app.http.engine, 'node');
  const lines = logs.entries().filter((e) => typeof e['msg'] === 'string' && (e['msg'] as string).startsWith('HTTP engine'));
  t.equal(lines.length, 1, 'one line');
  t.match(lines[0], { level: 'info', engine: 'node', reason: 'BIOGATE_HTTP_ENGINE=node', msg: 'HTTP engine: node:http' });
  t.match(
    logs.entries().find((e) => e['msg'] === 'listening'),
    { engine: 'node' },
  );
  const metrics = await (await fetch(`${s.url}/metrics`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } })).text();
  t.match(metrics, /^biogate_http_engine_info\{engine="node",node="[^"]+"\} 1$/m);
});

t.test('auto without uWebSockets.js: the app serves on node:http, with one warning saying why', async (t) => {
  const logs = logCapture();
  const s = await withoutUws(() => startApp(t, { logs, config: { httpEngine: 'auto' } }));
  t.equal(s.app.http.engine, 'node');
  t.equal((await fetch(`${s.url}/healthz`)).status, 200, 'and it answers');
  const lines = logs.entries().filter((e) => typeof e['msg'] === 'string' && (e['msg'] as string).startsWith('HTTP engine'));
  t.equal(lines.length, 1);
  t.match(lines[0], { level: 'warn', engine: 'node', reason: 'auto: UWS_USE_FALLBACK is set' });
});

t.test('uws forced without uWebSockets.js: the start fails with UwsUnavailableError', async (t) => {
  await withoutUws(() => t.rejects(startApp(t, { config: { httpEngine: 'uws' } }), UwsUnavailableError));
});

t.test('doctor: which engine serve will use; not loading is a warning under auto, a problem under uws', async (t) => {
  if (uwsLoads) t.match(checkHttpEngine('auto'), { name: 'http engine', status: 'ok', detail: /^uws: / });
  t.match(checkHttpEngine('node'), { status: 'ok', detail: /^node: node:http, as BIOGATE_HTTP_ENGINE=node asks/ });
  await withoutUws(() => {
    t.match(checkHttpEngine('auto'), {
      status: 'warning',
      detail: /^node: uWebSockets\.js does not load here \(UWS_USE_FALLBACK is set\)/,
      fix: /Node 20/,
    });
    t.match(checkHttpEngine('uws'), {
      status: 'problem',
      detail: /^BIOGATE_HTTP_ENGINE=uws, but uWebSockets\.js does not load here/,
      fix: /BIOGATE_HTTP_ENGINE=auto or node/,
    });
    t.match(checkHttpEngine('node'), { status: 'ok' });
  });
});
