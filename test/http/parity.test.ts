/**
 * Behaviour parity of the two HTTP engines (issue #19): the same table of requests against BioGate
 * on uWebSockets.js and on node:http, started alike (same config, same fake clock, fresh stores),
 * compared on what a client sees: status, the headers that carry meaning, and the body. Requests
 * go out raw (node:http client, no agent), so nothing is normalised on the way.
 *
 * What legitimately differs is left out and named: Date (time), Connection / Keep-Alive (each
 * engine's framing), generated request ids (random prefix; checked for shape instead).
 */
import { request } from 'node:http';
import { connect } from 'node:net';
import t from 'tap';
import { ADMIN_TOKEN, fakeClock, startApp, type StartedApp } from '../helpers/app.js';
import { loadUws } from '../../src/http/uws.js';

let uwsLoads = true;
try {
  loadUws();
} catch {
  uwsLoads = false;
}

interface Seen {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Headers that differ by nature, not by behaviour. */
const FRAMING = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding', 'uwebsockets']);
const GENERATED_ID = /^[a-z0-9]{1,6}-[0-9a-z]+$/;

function send(port: number, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<Seen> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.on('end', () => {
        const out: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers))
          if (!FRAMING.has(k) && v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
        resolve({ status: res.statusCode ?? 0, headers: out, body: text });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A request written by hand (for what node:http's client will not send: unknown methods, bare upgrades). */
function raw(port: number, text: string): Promise<string> {
  return new Promise((resolve) => {
    let got = '';
    const socket = connect(port, '127.0.0.1', () => socket.write(text));
    socket.setTimeout(3000, () => socket.destroy());
    socket.on('data', (d: Buffer) => {
      got += d.toString('latin1');
      // One response is enough: stop at the end of its body.
      const end = got.indexOf('\r\n\r\n');
      const length = /\r\ncontent-length: *(\d+)/i.exec(got)?.[1];
      if (end >= 0 && length !== undefined && got.length >= end + 4 + Number(length)) socket.destroy();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(got));
  });
}

/** Status line, meaningful headers (sorted, lower case) and body of a raw response. */
function parseRaw(text: string): Seen {
  const end = text.indexOf('\r\n\r\n');
  const [statusLine = '', ...lines] = text.slice(0, end < 0 ? text.length : end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const i = line.indexOf(':');
    const k = line.slice(0, i).trim().toLowerCase();
    if (!FRAMING.has(k)) headers[k] = line.slice(i + 1).trim();
  }
  return { status: Number(statusLine.split(' ')[1] ?? 0), headers, body: end < 0 ? '' : text.slice(end + 4) };
}

/** Replaces what is generated per app (ids, tokens) so the two answers can be compared. */
function normalise(seen: Seen, app: StartedApp): Seen {
  const headers = { ...seen.headers };
  if (headers['x-request-id'] !== undefined && GENERATED_ID.test(headers['x-request-id'])) headers['x-request-id'] = '<generated>';
  // Tokens are random (the bootstrap token, and any issued on the way).
  let body = seen.body
    .split(app.token)
    .join('<token>')
    .replace(/"bg_[A-Za-z0-9_-]{32}"/g, '"<token>"');
  body = body.replace(/"error_id":"[0-9a-f-]{36}"/g, '"error_id":"<uuid>"');
  return { status: seen.status, headers, body };
}

t.test(
  'the same requests get the same answers from both engines',
  { skip: !uwsLoads && 'uWebSockets.js does not load on this Node: nothing to compare with' },
  async (t) => {
    const start = '2026-03-01T08:00:00.000Z';
    const config = { adminToken: ADMIN_TOKEN, bodyLimitMb: 0.001, corsOrigins: 'https://dash.example.com', longpollS: 0 };
    const apps = {
      uws: await startApp(t, { clock: fakeClock(start), config: { ...config, httpEngine: 'uws' } }),
      node: await startApp(t, { clock: fakeClock(start), config: { ...config, httpEngine: 'node' } }),
    };
    t.equal(apps.uws.app.http.engine, 'uws');
    t.equal(apps.node.app.http.engine, 'node');

    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const json = { 'content-type': 'application/json' };
    const user = (a: StartedApp) => ({ authorization: `Bearer ${a.token}` });
    const table: { name: string; run: (a: StartedApp) => Promise<Seen> }[] = [
      { name: 'GET /healthz', run: (a) => send(a.port, 'GET', '/healthz') },
      { name: 'GET /api/me', run: (a) => send(a.port, 'GET', '/api/me', user(a)) },
      { name: 'HEAD /api/me: GET headers, no body', run: (a) => send(a.port, 'HEAD', '/api/me', user(a)) },
      { name: 'GET /api/me without a token: 401', run: (a) => send(a.port, 'GET', '/api/me') },
      { name: 'POST /api/me: 405 with Allow', run: (a) => send(a.port, 'POST', '/api/me', user(a), '{}') },
      { name: 'unknown path: 404', run: (a) => send(a.port, 'GET', '/nope/deeper?x=1') },
      { name: 'X-Request-Id echoed', run: (a) => send(a.port, 'GET', '/healthz', { 'x-request-id': 'trace-42.a:b_C' }) },
      { name: 'X-Request-Id with spaces replaced', run: (a) => send(a.port, 'GET', '/healthz', { 'x-request-id': 'has spaces' }) },
      {
        name: 'declared body over the limit: 413',
        run: (a) => send(a.port, 'POST', '/admin/locations', { ...admin, ...json, 'content-length': '5000' }, 'x'.repeat(5000)),
      },
      { name: 'malformed JSON: 400', run: (a) => send(a.port, 'POST', '/admin/locations', { ...admin, ...json }, '{"name": "x",') },
      { name: 'validation: 422', run: (a) => send(a.port, 'POST', '/admin/locations', { ...admin, ...json }, '{"name": ""}') },
      {
        name: 'create: 201',
        run: (a) => send(a.port, 'POST', '/admin/locations', { ...admin, ...json }, '{"name": "Second", "timezone": "Europe/Berlin"}'),
      },
      { name: 'list, UTF-8 names', run: (a) => send(a.port, 'GET', '/admin/locations', admin) },
      { name: 'path parameter, percent-encoded: 404 of the API', run: (a) => send(a.port, 'GET', '/api/users/%41%20b', user(a)) },
      {
        name: 'CORS preflight from a listed origin',
        run: (a) => send(a.port, 'OPTIONS', '/api/me', { origin: 'https://dash.example.com', 'access-control-request-method': 'GET' }),
      },
      {
        name: 'CORS headers on a response',
        run: (a) => send(a.port, 'GET', '/api/me', { ...user(a), origin: 'https://dash.example.com' }),
      },
      { name: 'terminal handshake [PUSH-v2 §4]', run: (a) => send(a.port, 'GET', '/iclock/cdata?SN=PARITY1&options=all&pushver=2.4.1') },
      { name: 'terminal poll, nothing to send', run: (a) => send(a.port, 'GET', '/iclock/getrequest?SN=PARITY1') },
      {
        name: 'terminal upload',
        run: (a) => send(a.port, 'POST', '/iclock/cdata?SN=PARITY1&table=ATTLOG&Stamp=1', {}, '1\t2026-03-01 08:00:00\t0\t1\t0\t0\t0\n'),
      },
      { name: 'a WebSocket path without Upgrade: 400', run: (a) => send(a.port, 'GET', '/api/stream', user(a)) },
      { name: 'metrics need the admin token', run: (a) => send(a.port, 'GET', '/metrics') },
      {
        name: 'WebSocket upgrade without a token: refused with the API error body',
        run: async (a) =>
          parseRaw(
            await raw(
              a.port,
              'GET /api/stream HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nX-Request-Id: ws-1\r\n\r\n',
            ),
          ),
      },
      {
        name: 'upgrade request on a plain route: answered as a request',
        run: async (a) =>
          parseRaw(
            await raw(
              a.port,
              'GET /healthz HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nX-Request-Id: up-1\r\n\r\n',
            ),
          ),
      },
    ];
    for (const { name, run } of table) {
      // One after the other on both, so each sees the same store state.
      const uws = normalise(await run(apps.uws), apps.uws);
      const node = normalise(await run(apps.node), apps.node);
      t.strictSame(node, uws, name);
    }
    t.end();
  },
);
