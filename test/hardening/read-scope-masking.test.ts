/**
 * Issue #32 item 18: a `read` token sees no keypad `password` (null, as registry_code is for scopes
 * that may not see it) and webhook URLs masked to scheme and host (`https://hooks.example.com/***`:
 * chat webhooks carry their secret in the path). Every door a read token reads users or webhooks
 * through is checked: the REST list, single gets, the import answer's views; the WebSocket stream
 * and MQTT (retained topics included) never carry a password at all.
 */
import t from 'tap';
import { ADMIN_TOKEN, bearer, fetchJson, jsonBody, startApp, waitFor } from '../helpers/app.js';
import { connect } from '../bridge/mqtt-client.js';
import { openStream, subscribe } from '../realtime/stream-client.js';

const HOOK = 'http://127.0.0.1:9/services/T0001/B0002/XyZsecretPart?token=abc123';

async function rig(t: Parameters<typeof startApp>[0]) {
  const started = await startApp(t, {
    config: { adminToken: ADMIN_TOKEN, webhookAllowPrivate: 'on', webhookAllowHttp: 'on', mqtt: 'embedded', mqttPort: 0 },
  });
  const issue = async (scope: 'read' | 'operator') =>
    (await started.app.locations.issueToken({ location_id: started.locationId, scope, expires_in_days: null, label: null })).token;
  const api = async (token: string, method: string, path: string, body?: unknown) => {
    const { res, body: out } = await fetchJson(
      `${started.url}${path}`,
      body === undefined ? { method, headers: bearer(token) } : jsonBody(method, body, bearer(token)),
    );
    return { status: res.status, body: out as Record<string, unknown> };
  };
  return { started, full: started.token, read: await issue('read'), operator: await issue('operator'), api };
}

t.test('users: a read token gets password null in the list, single gets and with biometrics; other scopes see it', async (t) => {
  const r = await rig(t);
  t.equal((await r.api(r.full, 'POST', '/api/users', { pin: 1001, first_name: 'Ada', password: 4321 })).status, 201);
  t.equal((await r.api(r.operator, 'POST', '/api/users', { pin: 1002, first_name: 'Bob', password: 9876 })).status, 201);

  for (const path of ['/api/users', '/api/users?include=biometrics']) {
    const list = (await r.api(r.read, 'GET', path)).body['data'] as Record<string, unknown>[];
    t.equal(list.length, 2, `${path}: both users listed`);
    t.ok(
      list.every((u) => 'password' in u && u['password'] === null),
      `${path}: every password is null for read`,
    );
  }
  for (const path of ['/api/users/1001', '/api/users/1001?include=biometrics']) {
    const one = await r.api(r.read, 'GET', path);
    t.equal(one.status, 200);
    t.equal(one.body['password'], null, `${path}: null for read`);
    t.equal(one.body['first_name'], 'Ada', 'the rest of the view is there');
  }
  t.equal((await r.api(r.full, 'GET', '/api/users/1001')).body['password'], 4321, 'full sees it');
  t.equal((await r.api(r.operator, 'GET', '/api/users/1002')).body['password'], 9876, 'operator (who sets it) sees it');
  const list = (await r.api(r.full, 'GET', '/api/users')).body['data'] as Record<string, unknown>[];
  t.strictSame(
    list.map((u) => u['password']),
    [4321, 9876],
    'full: in the list too',
  );
});

t.test('webhooks: non-full tokens get scheme and host with the path and query masked; full gets the URL', async (t) => {
  const r = await rig(t);
  const created = await r.api(r.full, 'POST', '/api/webhooks', { url: HOOK, events: ['user.changed'] });
  t.equal(created.status, 201);
  t.equal(created.body['url'], HOOK, 'the creator (full) sees what it sent');
  const id = created.body['id'] as number;

  for (const [scope, token] of [
    ['read', r.read],
    ['operator', r.operator],
  ] as const) {
    const list = (await r.api(token, 'GET', '/api/webhooks')).body['data'] as Record<string, unknown>[];
    t.strictSame(
      list.map((w) => w['url']),
      ['http://127.0.0.1:9/***'],
      `${scope}: the list masks the URL`,
    );
    const one = await r.api(token, 'GET', `/api/webhooks/${id}`);
    t.equal(one.status, 200);
    t.equal(one.body['url'], 'http://127.0.0.1:9/***', `${scope}: the single get masks it`);
    t.notOk(JSON.stringify(one.body).includes('XyZsecretPart'), `${scope}: no part of the secret path anywhere`);
  }
  t.equal((await r.api(r.full, 'GET', `/api/webhooks/${id}`)).body['url'], HOOK, 'full: the URL');
  t.strictSame(
    ((await r.api(r.full, 'GET', '/api/webhooks')).body['data'] as Record<string, unknown>[]).map((w) => w['url']),
    [HOOK],
    'full: in the list too',
  );
});

t.test('MQTT (retained topics included) and the stream never carry a keypad password', async (t) => {
  const r = await rig(t);
  const loc = r.started.locationId;
  const mqtt = await connect(t, `mqtt://127.0.0.1:${r.started.app.mqtt?.port ?? 0}`, { username: 'admin', password: ADMIN_TOKEN });
  await mqtt.client.subscribeAsync('#');
  const stream = await openStream(t, r.started.url, { token: r.read });
  await subscribe(stream);

  t.equal((await r.api(r.full, 'POST', '/api/users', { pin: 2001, first_name: 'Eve', password: 55_667_788 })).status, 201);
  t.equal((await r.api(r.full, 'POST', '/api/users', { pin: 2001, first_name: 'Eve', password: 11_223_344 })).status, 200);
  // A device assigned after the user changes: once its state is out, whatever the changes caused is too (one feed, in order).
  t.equal((await r.api(r.full, 'POST', '/api/devices', { sn: 'MASK0001' })).status, 201);
  await waitFor(() => mqtt.on(`biogate/${loc}/devices/MASK0001/state`).length > 0, 5000, 'the retained device state');
  await stream.next((m) => JSON.stringify(m).includes('MASK0001'), 'the device on the stream');

  // A late subscriber gets the retained topics only.
  const late = await connect(t, `mqtt://127.0.0.1:${r.started.app.mqtt?.port ?? 0}`, { username: 'admin', password: ADMIN_TOKEN });
  await late.client.subscribeAsync('#');
  await waitFor(() => late.messages.some((m) => m.retain), 5000, 'retained messages for a late subscriber');

  for (const [door, texts] of [
    ['MQTT', mqtt.messages.map((m) => m.text)],
    ['MQTT retained', late.messages.filter((m) => m.retain).map((m) => m.text)],
    ['stream', stream.messages.map((m) => JSON.stringify(m))],
  ] as const) {
    t.ok(texts.length > 0, `${door}: messages arrived`);
    // The audit log's entry (topic `audit`) names the field with the one value a secret has there: "(changed)".
    t.notOk(
      texts.some((x) => /password|55667788|11223344/i.test(x.replaceAll('"password":"(changed)"', ''))),
      `${door}: no password field or value`,
    );
  }
  t.ok(
    mqtt.messages.some((m) => m.topic === `biogate/${loc}/audit` && m.text.includes('"password":"(changed)"')),
    'the audit entry says that the password changed, and nothing more',
  );
});
