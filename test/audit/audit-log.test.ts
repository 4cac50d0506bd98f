/**
 * Issue #36 item 1, the audit log: one entry per change made through each door (the REST API, the admin API,
 * MQTT requests, the CLI), with the actor, the action, the target and field → [before, after]; secrets only
 * as "(changed)"; none for a change that failed; scoped to the caller's location; `audit.recorded` on the
 * feed; the page and the cursor feed with their filters; retention. On SQLite an entry that cannot be
 * written undoes its change (one transaction). Runs on both stores (test/mongo-api-leg.mjs).
 */
import t from 'tap';
import { pruneAuditLog } from '../../src/audit-log/retention.js';
import type { AnyFeedEvent } from '../../src/events/types.js';
import { TEST_FAULTS_ENV } from '../../src/store/test-faults.js';
import { connect } from '../bridge/mqtt-client.js';
import { gateway, type Call } from '../api/client.js';
import { ADMIN_TOKEN, DAY_MS, fakeClock, startApp, TEST_STORE, waitFor } from '../helpers/app.js';
import { cli } from '../helpers/cli.js';

interface Entry {
  id: number;
  at: string;
  actor: { kind: string; token_id?: number; label?: string; address?: string };
  action: string;
  target: { type: string; id: string };
  changes: Record<string, unknown>;
  location_id?: number | null;
}
interface Page {
  data: Entry[];
  total: number;
}
interface Feed {
  data: Entry[];
  next_cursor: number;
  has_more: boolean;
}

const entries = async (api: Call, query = '') => ((await api<Page>('GET', `/api/audit${query}`)).body as Page).data;

t.test('the REST API: an entry per change, secrets hidden, none for a failed change, scoped to the location', async (t) => {
  const gw = await gateway(t, { config: { adminToken: ADMIN_TOKEN } });
  const { a } = gw;
  const events: AnyFeedEvent[] = [];
  const sub = gw.started.app.feed.subscribe({ locationId: a.id }, (e) => void events.push(e));
  t.teardown(() => sub.close());

  t.equal((await a.api('POST', '/api/users', { body: { pin: 7, first_name: 'Ann', card_no: '12345', password: 4321 } })).status, 201);
  t.equal((await a.api('POST', '/api/users', { body: { pin: 7, first_name: 'Anna' } })).status, 200);
  t.equal((await a.api('POST', '/api/users', { body: { pin: 7, first_name: 'Anna' } })).status, 200, 'the same write again');
  t.equal((await a.api('POST', '/api/users', { body: { pin: 8, first_name: 'x'.repeat(500) } })).status, 422, 'refused');
  t.equal((await a.api('DELETE', '/api/users/99')).status, 404, 'nothing to delete');
  t.equal((await a.api('DELETE', '/api/users/7')).status, 200);

  const log = await entries(a.api, '?target_type=user');
  t.same(
    log.map((e) => [e.action, e.target]),
    [
      ['user.deleted', { type: 'user', id: '7' }],
      ['user.updated', { type: 'user', id: '7' }],
      ['user.created', { type: 'user', id: '7' }],
    ],
    'newest first; nothing for the repeat, the 422 or the 404',
  );
  const [deleted, updated, created] = log as [Entry, Entry, Entry];
  t.same(updated.changes, { first_name: ['Ann', 'Anna'] }, 'only what changed');
  t.match(created.changes, { first_name: [null, 'Ann'], card_no: '(changed)', password: '(changed)', pin: [null, 7] });
  t.match(deleted.changes, { first_name: ['Anna', null], card_no: '(changed)' });
  t.notOk(JSON.stringify(log).includes('12345') || JSON.stringify(log).includes('4321'), 'no card or password value anywhere');
  t.match(created.actor, { kind: 'token', token_id: Number, address: String });
  t.ok(!('label' in created.actor) || typeof created.actor.label === 'string');

  // A webhook's signing secret, a device's name.
  const hook = await a.api<{ id: number }>('POST', '/api/webhooks', {
    body: { url: 'https://example.com/hook', events: ['user.changed'] },
  });
  t.equal(hook.status, 201);
  t.equal((await a.api('POST', '/api/devices', { body: { sn: 'AUD-1', name: 'Front' } })).status, 201);
  t.equal((await a.api('PATCH', '/api/devices/AUD-1', { body: { name: 'Lobby' } })).status, 200);
  const [patched, assigned, webhook] = await entries(a.api);
  t.match(webhook, { action: 'webhook.created', target: { type: 'webhook', id: String(hook.body.id) }, changes: { secret: '(changed)' } });
  t.match(assigned, { action: 'device.assigned', target: { type: 'device', id: 'AUD-1' }, changes: { name: [null, 'Front'] } });
  t.same(patched?.changes, { name: ['Front', 'Lobby'] });

  // Scoped: another location sees none of it, and its own changes only.
  const b = await gw.tenant('Other');
  t.same(await entries(b.api), []);
  await b.api('POST', '/api/areas', { body: { name: 'Hall' } });
  t.same(
    (await entries(b.api)).map((e) => e.action),
    ['area.created'],
  );
  t.notOk((await entries(a.api)).some((e) => e.action === 'area.created'));

  // On the feed, as GET shows it.
  // (The bootstrap's entries were written before the subscription.)
  const since = (list: Entry[]) => list.filter((e) => e.id >= created.id);
  const stored = since([...(await entries(a.api))].reverse());
  const fedEntries = () =>
    since(events.filter((e) => e.type === 'audit.recorded').map((e) => (e.data as unknown as { entry: Entry }).entry));
  await waitFor(() => fedEntries().length >= stored.length, 5_000, 'audit.recorded events');
  t.same(fedEntries(), stored, 'every entry of A since, in order, as GET shows it');
});

t.test('the cursor feed and the filters', async (t) => {
  const clock = fakeClock('2026-03-01T08:00:00.000Z');
  const gw = await gateway(t, { clock });
  const { a } = gw;
  for (const pin of [1, 2, 3]) {
    await a.api('POST', '/api/users', { body: { pin, first_name: `U${pin}` } });
    clock.advance(DAY_MS);
  }
  await a.api('POST', '/api/areas', { body: { name: 'Hall' } });
  clock.advance(60_000);
  const first = (await a.api<Feed>('GET', '/api/audit?after=0&limit=3')).body;
  const named = (feed: Feed) => feed.data.map((e) => `${e.target.type}:${e.target.id}`);
  t.same(named(first), ['location:1', 'token:1', 'user:1'], 'oldest first: the bootstrap, then the first user');
  t.equal(first.has_more, true);
  const second = (await a.api<Feed>(`GET`, `/api/audit?after=${first.next_cursor}&limit=10`)).body;
  t.same(named(second), ['user:2', 'user:3', `area:${second.data.at(-1)?.target.id}`]);
  t.equal(second.has_more, false);
  const third = (await a.api<Feed>('GET', `/api/audit?after=${second.next_cursor}`)).body;
  t.same(third, { data: [], next_cursor: second.next_cursor, has_more: false }, 'nothing new: the same cursor');

  t.same(
    (await entries(a.api, '?target_type=area')).map((e) => e.action),
    ['area.created'],
  );
  t.same((await entries(a.api, '?action=user.created')).length, 3);
  t.same(
    (await entries(a.api, '?from=2026-03-02&to=2026-03-02')).map((e) => e.target.id),
    ['2'],
    'a day',
  );
  t.match(await a.api('GET', '/api/audit?action=DROP%20TABLE'), { status: 422, body: { code: 'VALIDATION_FAILED' } });
  t.match(await a.api('GET', '/api/audit?after=-1'), { status: 422 });
  t.match(await a.api('GET', '/api/audit', { token: null }), { status: 401 });

  // Retention: entries older than the days kept go.
  clock.advance(400 * DAY_MS);
  await a.api('POST', '/api/areas', { body: { name: 'Yard' } });
  const pruned = await pruneAuditLog(gw.started.app.store, clock.now(), 365);
  t.equal(pruned, 6, 'the bootstrap, three users, an area');
  t.same(
    (await entries(a.api)).map((e) => e.action),
    ['area.created'],
  );
});

t.test('the admin API, MQTT requests and the CLI are doors too', async (t) => {
  const started = await startApp(t, { config: { adminToken: ADMIN_TOKEN, mqtt: 'embedded', mqttPort: 0 } });
  const admin = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${started.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const made = await admin('POST', '/admin/locations', { name: 'Branch', timezone: 'Europe/Berlin' });
  t.equal(made.status, 201);
  const branch = (made.body['location'] as { id: number }).id;
  const issued = await admin('POST', `/admin/locations/${branch}/tokens`, { label: 'door panel' });
  t.equal(issued.status, 201);
  const log = (await admin('GET', `/admin/audit?location_id=${branch}`)).body as unknown as Page;
  t.same(
    log.data.map((e) => [e.action, e.actor.kind, e.location_id]),
    [
      ['token.created', 'admin', branch],
      ['token.created', 'admin', branch],
      ['location.created', 'admin', branch],
    ],
  );
  t.match(log.data[0]?.changes, { token: '(changed)', label: [null, 'door panel'] });
  t.notOk(JSON.stringify(log).includes(issued.body['token'] as string), 'never the token');
  t.equal((await admin('GET', '/admin/audit')).status, 200);
  t.equal(
    (await fetch(`${started.url}/admin/audit`, { headers: { authorization: `Bearer ${started.token}` } })).status,
    401,
    'a location token is not the admin',
  );

  // MQTT: a command request is the logged-in token's change.
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${started.url}${path}`, { ...init, headers: { authorization: `Bearer ${started.token}`, 'content-type': 'application/json' } });
  t.equal((await api('/api/devices', { method: 'POST', body: JSON.stringify({ sn: 'MQ-1' }) })).status, 201);
  const mq = await connect(t, `mqtt://127.0.0.1:${started.app.mqtt?.port}`, {
    username: String(started.locationId),
    password: started.token,
  });
  await mq.client.subscribeAsync(`biogate/${started.locationId}/response/command`);
  await mq.client.publishAsync(`biogate/${started.locationId}/request/command`, JSON.stringify({ sn: 'MQ-1', command: 'reboot' }));
  const answer = mq.json<{ data: { id: number } }>(await mq.next(`biogate/${started.locationId}/response/command`));
  const own = ((await (await api('/api/audit')).json()) as Page).data;
  t.match(own[0], {
    action: 'command.queued',
    target: { type: 'command', id: String(answer.data.id) },
    actor: { kind: 'token' },
    changes: { command: [null, 'reboot'] },
  });

  // The CLI, on the same store, as the CLI.
  const run = await cli(['location', 'create', '--name', 'Depot'], { BIOGATE_STORE: started.storeUrl, USER: 'ops' });
  t.equal(run.code, 0, run.stderr);
  const all = ((await admin('GET', '/admin/audit?action=location.created')).body as unknown as Page).data;
  t.match(all[0], { actor: { kind: 'cli', label: 'ops' }, changes: { name: [null, 'Depot'] } });
  t.match(all.at(-1), { actor: { kind: 'system' }, changes: { name: [null, 'Default'] } }, 'the bootstrap location is the system’s');
});

t.test('an entry that cannot be written: SQLite undoes the change; MongoDB keeps it, entry lost', async (t) => {
  const previous = process.env[TEST_FAULTS_ENV];
  process.env[TEST_FAULTS_ENV] = '';
  t.teardown(() => {
    if (previous === undefined) delete process.env[TEST_FAULTS_ENV];
    else process.env[TEST_FAULTS_ENV] = previous;
  });
  const { a } = await gateway(t);
  t.equal((await a.api('POST', '/api/users', { body: { pin: 5, first_name: 'Bo' } })).status, 201);
  process.env[TEST_FAULTS_ENV] = 'auditLog.append';
  t.equal((await a.api('POST', '/api/users', { body: { pin: 5, first_name: 'Bea' } })).status, 500);
  process.env[TEST_FAULTS_ENV] = '';
  const user = (await a.api<{ first_name: string }>('GET', '/api/users/5')).body;
  t.equal(
    user.first_name,
    TEST_STORE === 'sqlite' ? 'Bo' : 'Bea',
    TEST_STORE === 'sqlite' ? 'rolled back with its entry' : 'written before its entry',
  );
  t.same(
    (await entries(a.api, '?target_type=user')).map((e) => e.action),
    ['user.created'],
  );
});
