/**
 * Logs never carry secrets (README "Operations"): tokens, passwords, cookies,
 * authorization headers, comm keys and template data are redacted wherever
 * BioGate puts them, and a real request leaves no token text behind.
 */
import t from 'tap';
import { createLogger } from '../src/log.js';
import { ADMIN_TOKEN, bearer, jsonBody, logCapture, startApp } from './helpers/app.js';

t.test('createLogger redacts sensitive keys at every depth BioGate logs', async (t) => {
  const capture = logCapture();
  const log = createLogger({ level: 'info', destination: capture });
  const secrets = Array.from({ length: 20 }, (_, i) => `SECRET${String(i).padStart(2, '0')}x`);
  const [s0, s1, s2, s3, s4, s5, s6, s7, s8, s9, s10, s11, s12, s13, s14, s15, s16, s17] = secrets;
  log.info(
    {
      authorization: `Bearer ${s0}`,
      token: s1,
      password: s2,
      template: s3,
      tmp: s4,
      headers: { authorization: s5, cookie: s6, 'set-cookie': s7 },
      cookie: s8,
      comm_key: s9,
      adminToken: s10,
      templates: [s11],
      device: { sn: 'CQZ7224460246', token: s12, headers: { authorization: s13 } },
      user: { pin: 7, password: s14, templates: [{ tmp: s15 }] },
      ctx: { req: { token: s16 } },
      sn: 'CQZ7224460246',
      count: 3,
    },
    'device registered',
  );
  log.child({ reqId: 'r1' }).warn({ err: Object.assign(new Error('boom'), { token: s17 }) }, 'with an error');

  const text = capture.text();
  for (const secret of secrets) t.notOk(text.includes(secret), `${secret} is not in the log`);
  const [line, warn] = capture.entries();
  t.match(line, {
    level: 'info',
    service: 'biogate',
    msg: 'device registered',
    authorization: '[redacted]',
    token: '[redacted]',
    password: '[redacted]',
    template: '[redacted]',
    tmp: '[redacted]',
    headers: { authorization: '[redacted]', cookie: '[redacted]', 'set-cookie': '[redacted]' },
    cookie: '[redacted]',
    comm_key: '[redacted]',
    adminToken: '[redacted]',
    templates: '[redacted]',
    device: { sn: 'CQZ7224460246', token: '[redacted]', headers: { authorization: '[redacted]' } },
    user: { pin: 7, password: '[redacted]', templates: '[redacted]' },
    ctx: { req: { token: '[redacted]' } },
    sn: 'CQZ7224460246',
    count: 3,
  });
  t.match(warn, { level: 'warn', reqId: 'r1', msg: 'with an error', err: { message: 'boom', token: '[redacted]' } });
  t.match(line?.['time'], /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
});

t.test('a real request at debug level leaves no token text in the log', async (t) => {
  const capture = logCapture();
  const { url, token } = await startApp(t, { logs: capture, config: { logLevel: 'debug', adminToken: ADMIN_TOKEN } });
  t.equal(
    (await fetch(`${url}/api/me`, { headers: { ...bearer(token), cookie: `session=${token}`, 'x-request-id': 'log-test-1' } })).status,
    200,
  );
  t.equal((await fetch(`${url}/api/me`, { headers: bearer(token.slice(0, -2) + 'zz') })).status, 401);
  const created = await fetch(`${url}/admin/locations`, jsonBody('POST', { name: 'Logged' }, bearer(ADMIN_TOKEN)));
  t.equal(created.status, 201);
  const newToken = ((await created.json()) as { token: string }).token;

  const text = capture.text();
  for (const secret of [token, token.slice(3), token.slice(0, -2) + 'zz', ADMIN_TOKEN, newToken]) {
    t.notOk(text.includes(secret), 'no token text in the log');
  }
  t.notOk(/bg_[A-Za-z0-9_-]{20,}/.test(text), 'nothing that looks like a token');

  // The log did capture the activity, so the checks above looked at something.
  const entries = capture.entries();
  t.ok(
    entries.some((e) => e['msg'] === 'listening'),
    'startup logged',
  );
  t.ok(
    entries.some((e) => e['msg'] === 'bootstrap location created' && typeof e['token_id'] === 'number'),
    'bootstrap logged by token id',
  );
  t.match(
    entries.find((e) => e['reqId'] === 'log-test-1'),
    { level: 'debug', msg: 'request', method: 'GET', path: '/api/me', route: '/api/me', status: 200 },
    'the request is logged at debug, with its id',
  );
});

t.test('at info level requests are not logged', async (t) => {
  const capture = logCapture();
  const { url } = await startApp(t, { logs: capture, config: { logLevel: 'info' } });
  await fetch(`${url}/healthz`);
  t.notOk(capture.entries().some((e) => e['msg'] === 'request'));
  t.ok(capture.entries().some((e) => e['msg'] === 'listening'));
});
