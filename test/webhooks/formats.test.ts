/**
 * Issue #36 item 5, webhooks that tools understand: a `template` subscription's body arrives byte for byte as
 * rendered (with its extra headers and a signature that verifies); `filter` narrows by terminal, area, PIN and
 * door event code (an upload cut to its matching punches); the presets send what ERPNext, Odoo, Slack and
 * Telegram take; POST /api/webhooks/{id}/test sends a sample with the current settings; and bad settings are
 * refused with 422 without changing what is stored. Real terminals (simulated v2, raw HTTP), a real receiver.
 */
import t from 'tap';
import type * as Tap from 'tap';
import { createSimulatedDevice } from '../../src/simulator/index.js';
import { bearer, fetchJson, jsonBody, startApp, waitFor, type StartedApp } from '../helpers/app.js';
import { startReceiver, verifySignature, type Receiver } from './receiver.js';

/** JSON as these checks read it: any field, any depth (what arrived is compared, not trusted). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a JSON reader's view of untyped bodies
type Json = any;
type Api = (method: string, path: string, body?: unknown, token?: string) => Promise<{ status: number; body: Json }>;

async function setUp(t: Tap.Test): Promise<{ app: StartedApp; api: Api; rx: Receiver }> {
  const app = await startApp(t, { config: { webhookAllowPrivate: 'on', webhookAllowHttp: 'on', longpollS: 0 } });
  const api: Api = async (method, path, body, token = app.token) => {
    const r = await fetchJson(
      `${app.url}${path}`,
      body === undefined ? { method, headers: bearer(token) } : jsonBody(method, body, bearer(token)),
    );
    return { status: r.res.status, body: r.body };
  };
  return { app, api, rx: await startReceiver(t) };
}

/** A v2 terminal of the location that has said hello; `upload` posts ATTLOG lines `[pin, local time, state]`. */
async function terminal(t: Tap.Test, app: StartedApp, api: Api, sn: string, areaId: number | null = null) {
  t.equal((await api('POST', '/api/devices', { sn, area_id: areaId })).status, 201);
  const sim = createSimulatedDevice({ url: app.url, sn, protocol: 'v2', requestTimeoutMs: 10_000 });
  t.teardown(() => sim.stop());
  await sim.handshake();
  return {
    upload: async (lines: [string, string, number][]) => {
      const body = lines.map(([pin, at, state]) => `${pin}\t${at}\t${state}\t1\t0\t0\t0\n`).join('');
      const r = await fetch(`${app.url}/iclock/cdata?SN=${sn}&table=ATTLOG&Stamp=1`, { method: 'POST', body });
      t.equal(r.status, 200, `${sn}: upload accepted`);
      await r.text();
    },
  };
}

const bodies = (rx: Receiver) => rx.received.map((r) => JSON.parse(r.body) as Json);

t.test('template: the body arrives byte for byte as rendered, with the extra headers, signed', async (t) => {
  const { app, api, rx } = await setUp(t);
  const template = {
    employee: '{{data.records.0.pin}}',
    note: 'At {{ data.records.0.local_time }} on {{data.sn}} ({{data.records.0}})',
    state: '{{data.records.0.status}}',
    location: '{{location_id}}',
    missing: '{{data.nope.deeper}}',
    gone: 'x{{data.nope}}y',
    list: ['{{type}}', 1, null, { nested: '"quoted" {{id}}' }],
  };
  const created = await api('POST', '/api/webhooks', {
    url: rx.url,
    events: ['attendance.recorded'],
    format: 'template',
    template,
    headers: { 'X-Api-Key': 'k-123', Authorization: 'token a:b' },
  });
  t.equal(created.status, 201);
  t.match(created.body, { format: 'template', template, headers: { 'x-api-key': '***', authorization: '***' }, filter: null });
  const dev = await terminal(t, app, api, 'TPL00001');
  await dev.upload([['4711', '2026-03-01 09:00:00', 0]]);
  await waitFor(() => rx.received.length >= 1, 15_000, 'the delivery');

  const punches = (await api('GET', '/api/attendance?sn=TPL00001')).body.data as Json[];
  t.equal(punches.length, 1);
  const record = punches[0];
  const got = rx.received[0]!;
  const id = String(got.headers['webhook-id']);
  const expected = JSON.stringify({
    employee: '4711',
    note: `At 2026-03-01 09:00:00 on TPL00001 (${JSON.stringify(record)})`,
    state: 0,
    location: app.locationId,
    missing: null,
    gone: 'xy',
    list: ['attendance.recorded', 1, null, { nested: `"quoted" ${id}` }],
  });
  t.equal(got.body, expected, 'received byte for byte as rendered (quotes escaped, types kept)');
  t.ok(verifySignature(created.body.secret, got.headers, got.body), 'signed like every format');
  t.equal(got.headers['x-api-key'], 'k-123');
  t.equal(got.headers['authorization'], 'token a:b');
  t.equal(got.headers['content-type'], 'application/json');

  const read = await app.app.locations.issueToken({ location_id: app.locationId, scope: 'read', label: 'reader' });
  const asReader = await api('GET', `/api/webhooks/${created.body.id}`, undefined, read.token);
  t.equal(asReader.body.template, null, 'a read token does not see the template');
  t.same(asReader.body.headers, { 'x-api-key': '***', authorization: '***' }, 'nor any header value');
});

t.test('filter: by terminal, area, PIN and door event code; an upload is cut to its matching punches', async (t) => {
  const { app, api, rx } = await setUp(t);
  const dock = (await api('POST', '/api/areas', { name: 'Dock' })).body.id as number;
  const byArea = await api('POST', '/api/webhooks', {
    url: `${rx.url}?area`,
    events: ['attendance.recorded', 'device.updated'],
    filter: { area_id: [dock], pin: ['1', '3'] },
  });
  t.equal(byArea.status, 201);
  const bySn = await api('POST', '/api/webhooks', { url: `${rx.url}?sn`, events: ['attendance.recorded'], filter: { sn: ['FLT00002'] } });
  const byCode = await api('POST', '/api/webhooks', {
    url: `${rx.url}?code`,
    events: ['attendance.recorded'],
    filter: { event_codes: [27] },
  });
  t.equal(bySn.status, 201);
  t.equal(byCode.status, 201);
  const inDock = await terminal(t, app, api, 'FLT00001', dock);
  const outside = await terminal(t, app, api, 'FLT00002');
  await inDock.upload([
    ['1', '2026-03-01 09:00:00', 0],
    ['2', '2026-03-01 09:00:01', 0],
    ['3', '2026-03-01 09:00:02', 1],
  ]);
  await outside.upload([['1', '2026-03-01 09:01:00', 0]]);
  await waitFor(() => rx.received.length >= 3, 15_000, 'the deliveries');
  await app.app.webhooks.runOnce();
  const got = bodies(rx);
  const area = got.filter((b) => b.data.records?.every((r: Json) => r.sn === 'FLT00001'));
  t.same(
    area.flatMap((b) => b.data.records.map((r: Json) => r.pin)),
    ['1', '3'],
    'area and PIN: the dock terminal’s punches of PINs 1 and 3 only, one delivery each',
  );
  const sn = got.filter((b) => b.data.records?.every((r: Json) => r.sn === 'FLT00002'));
  t.equal(sn.length, 1, 'sn: the other terminal’s punch, once');
  t.equal(got.length, 3, 'nothing for the event-code filter (punches carry no door event code), nothing else');
  t.notOk(
    got.some((b) => b.type === 'device.updated'),
    'device.updated events carry no PIN: the PIN filter drops them, even for the dock terminal',
  );
});

t.test('presets: ERPNext check-in, Odoo kiosk scan, Slack and Telegram text', async (t) => {
  const { app, api, rx } = await setUp(t);
  const make = async (format: string, extra: Record<string, unknown> = {}, events = ['attendance.recorded', 'device.updated']) => {
    const r = await api('POST', '/api/webhooks', { url: `${rx.url}/${format}`, events, format, ...extra });
    t.equal(r.status, 201, `${format} created`);
    return r.body;
  };
  await make('erpnext_checkin', { headers: { authorization: 'token key:secret' } });
  const odoo = await make('odoo_attendance', { format_options: { token: 'kiosk-secret' } });
  t.same(odoo.format_options, { token: '***' }, 'the Odoo kiosk token is never shown');
  await make('slack');
  const telegram = await make('telegram', { format_options: { chat_id: '-100123' } });
  t.same(telegram.format_options, { chat_id: '-100123' });
  const dev = await terminal(t, app, api, 'PRE00001');
  await dev.upload([
    ['7', '2026-03-01 09:00:00', 0],
    ['8', '2026-03-01 17:30:00', 1],
  ]);
  await waitFor(
    () => rx.received.filter((r) => r.body.includes('PRE00001') || r.body.includes('"barcode"')).length >= 8,
    15_000,
    'deliveries',
  );
  await app.app.webhooks.runOnce();
  const got = bodies(rx);
  const erp = got.filter((b) => 'employee_field_value' in b);
  t.same(
    erp,
    [
      { employee_field_value: '7', timestamp: '2026-03-01 09:00:00', device_id: 'PRE00001', log_type: 'IN' },
      { employee_field_value: '8', timestamp: '2026-03-01 17:30:00', device_id: 'PRE00001', log_type: 'OUT' },
    ],
    'ERPNext: one check-in per punch, IN/OUT from the state key; no device event',
  );
  const scans = got.filter((b) => b.method === 'call');
  t.same(
    scans.map((b) => [b.jsonrpc, b.params]),
    [
      ['2.0', { token: 'kiosk-secret', barcode: '7' }],
      ['2.0', { token: 'kiosk-secret', barcode: '8' }],
    ],
    'Odoo: one badge scan per punch',
  );
  const texts = got.filter((b) => 'text' in b && !('chat_id' in b)).map((b) => b.text);
  t.ok(texts.includes('PIN 7 check-in at 2026-03-01 09:00:00 on PRE00001'), 'Slack: a line per punch');
  t.ok(
    texts.some((x: string) => x.startsWith('device.updated in location')),
    'and a line for other events',
  );
  const tg = got.filter((b) => 'chat_id' in b);
  t.ok(tg.length >= 3, 'Telegram: punches and the device event');
  t.ok(tg.every((b) => b.chat_id === '-100123'));
  t.ok(tg.some((b) => b.text === 'PIN 8 check-out at 2026-03-01 17:30:00 on PRE00001'));
});

t.test('POST …/test sends a sample with the current settings; PATCH changes the format', async (t) => {
  const { api, rx } = await setUp(t);
  const hook = (await api('POST', '/api/webhooks', { url: rx.url, events: ['attendance.recorded'] })).body;
  t.equal((await api('POST', `/api/webhooks/${hook.id}/test`)).status, 202);
  await waitFor(() => rx.received.length >= 1, 10_000, 'the ping');
  t.match(bodies(rx)[0], { type: 'ping', data: { webhook_id: hook.id } }, 'standard: a ping');

  const patched = await api('PATCH', `/api/webhooks/${hook.id}`, {
    format: 'template',
    template: { who: '{{data.records.0.pin}}', t: '{{type}}' },
  });
  t.equal(patched.status, 200);
  t.equal((await api('POST', `/api/webhooks/${hook.id}/test`)).status, 202);
  await waitFor(() => rx.received.length >= 2, 10_000, 'the sample');
  t.equal(rx.received[1]!.body, '{"who":"0","t":"attendance.recorded"}', 'template: the sample punch, rendered');
  t.ok(verifySignature(hook.secret, rx.received[1]!.headers, rx.received[1]!.body));

  const slack = await api('PATCH', `/api/webhooks/${hook.id}`, { format: 'slack' });
  t.match(slack.body, { format: 'slack', template: null, format_options: null }, 'another format drops the template');
  t.equal((await api('POST', `/api/webhooks/${hook.id}/test`)).status, 202);
  await waitFor(() => rx.received.length >= 3, 10_000, 'the slack sample');
  t.match(JSON.parse(rx.received[2]!.body), { text: /^PIN 0 check-in at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d on SAMPLE$/ });
  const deliveries = (await api('GET', `/api/webhooks/${hook.id}/deliveries`)).body.data as { type: string }[];
  t.ok(
    deliveries.every((d) => d.type === 'ping'),
    'samples are listed as pings (outside the punch order)',
  );
});

t.test('bad settings: 422 with the field, nothing stored', async (t) => {
  const { api, rx } = await setUp(t);
  const refused = async (body: Record<string, unknown>, loc: string[], what: string) => {
    const r = await api('POST', '/api/webhooks', { url: rx.url, events: ['attendance.recorded'], ...body });
    t.equal(r.status, 422, what);
    t.same(r.body.detail?.[0]?.loc?.slice(0, loc.length), loc, `${what}: names ${loc.join('.')}`);
  };
  await refused({ format: 'template' }, ['body', 'template'], 'template without a template');
  await refused({ template: { a: 1 } }, ['body', 'template'], 'a template with the standard format');
  await refused({ format: 'template', template: { a: '{{secret.x}}' } }, ['body', 'template'], 'a placeholder outside the envelope');
  await refused({ format: 'template', template: { a: 'x'.repeat(17_000) } }, ['body', 'template'], 'a template over 16 KiB');
  await refused(
    { format: 'template', template: Array.from({ length: 65 }, () => '{{id}}') },
    ['body', 'template'],
    'more than 64 placeholders',
  );
  await refused({ format: 'telegram' }, ['body', 'format_options', 'chat_id'], 'telegram without a chat');
  await refused({ format: 'slack', format_options: { chat_id: '1' } }, ['body', 'format_options', 'chat_id'], 'a chat_id for slack');
  await refused({ format: 'odoo_attendance' }, ['body', 'format_options', 'token'], 'odoo without its token');
  await refused({ headers: { 'Webhook-Signature': 'x' } }, ['body', 'headers', 'Webhook-Signature'], 'a signature header');
  await refused({ headers: { 'content-type': 'text/plain' } }, ['body', 'headers', 'content-type'], 'the content type');
  await refused({ headers: { 'X-A': '1', 'x-a': '2' } }, ['body', 'headers'], 'a header twice');
  await refused({ headers: { 'X-A': 'a\r\nInjected: 1' } }, ['body', 'headers'], 'a header value with a line break');
  await refused({ headers: { 'bad name': '1' } }, ['body', 'headers'], 'a header name with a space');
  await refused({ filter: { sn: [] } }, ['body', 'filter'], 'an empty filter list');
  await refused({ filter: { door: [1] } }, ['body', 'filter'], 'an unknown filter key');
  await refused({ format: 'xml' }, ['body', 'format'], 'an unknown format');
  t.same((await api('GET', '/api/webhooks')).body.data, [], 'nothing was stored');

  const hook = (await api('POST', '/api/webhooks', { url: rx.url, events: ['attendance.recorded'], filter: {} })).body;
  t.equal(hook.filter, null, 'an empty filter is no filter');
  const bad = await api('PATCH', `/api/webhooks/${hook.id}`, { format: 'telegram', description: 'changed?' });
  t.equal(bad.status, 422);
  const after = (await api('GET', `/api/webhooks/${hook.id}`)).body;
  t.match(after, { format: 'standard', description: null }, 'a refused PATCH changes nothing');
});
