/**
 * Issue #36 item 4, alert rules: CRUD with each kind's params checked; a terminal gone quiet raised once with two
 * nodes evaluating at once, delivered to the rule's webhook, and cleared once when it is heard again; door, alarm,
 * refusal-burst, storage and webhook conditions from what terminals and webhooks really report. Both stores
 * (test/mongo-api-leg.mjs); the clock is the only fake.
 */
import { createServer } from 'node:http';
import t from 'tap';
import { evaluateAlerts } from '../../src/alerts/evaluate.js';
import type { AnyFeedEvent } from '../../src/events/types.js';
import { createLogger } from '../../src/log.js';
import type { Clock } from '../../src/clock.js';
import { createSimulatedDevice } from '../../src/simulator/index.js';
import { client } from '../api/client.js';
import { setup } from '../convergence/helpers.js';
import { fakeClock, startApp, waitFor, type StartedApp } from '../helpers/app.js';

interface Rule {
  id: number;
  kind: string;
  params: Record<string, number>;
  webhook_id: number | null;
  enabled: boolean;
  incidents: { key: string; since: string; detail: Record<string, unknown> }[];
}

const OPEN = { webhookAllowPrivate: 'on', webhookAllowHttp: 'on', longpollS: 0 } as const;
const silent = createLogger({ level: 'silent' });
/** One round of the alerts job on a node, as its singleton job runs it. */
const evaluate = (app: StartedApp, clock: Clock) => evaluateAlerts({ store: app.app.store, bus: app.app.bus, clock, log: silent });

t.test('rules: each kind’s params checked and defaulted; scoped to the location', async (t) => {
  const app = await startApp(t);
  const api = client(app.url, app.token);
  const made = await api<Rule>('POST', '/api/alerts', { body: { name: 'Quiet', kind: 'device_offline' } });
  t.equal(made.status, 201);
  t.match(made.body, { kind: 'device_offline', params: { minutes: 5 }, webhook_id: null, enabled: true, incidents: [] });
  t.match(await api('POST', '/api/alerts', { body: { name: 'x', kind: 'denied_burst', params: { count: 1 } } }), {
    status: 422,
    body: { detail: [{ loc: ['body', 'params', 'count'] }] },
  });
  t.match(
    await api('POST', '/api/alerts', { body: { name: 'x', kind: 'storage_high', params: { minutes: 3 } } }),
    { status: 422 },
    'a param of another kind',
  );
  t.match(await api('POST', '/api/alerts', { body: { name: 'x', kind: 'fire' } }), { status: 422 });
  t.match(await api('POST', '/api/alerts', { body: { name: 'x', kind: 'alarm', webhook_id: 99 } }), {
    status: 422,
    body: { detail: [{ loc: ['body', 'webhook_id'] }] },
  });
  const put = await api<Rule>('PUT', `/api/alerts/${made.body.id}`, {
    body: { name: 'Quiet', kind: 'device_offline', params: { minutes: 2 }, enabled: false },
  });
  t.match(put, { status: 200, body: { params: { minutes: 2 }, enabled: false } });
  t.match(await api('PUT', '/api/alerts/999', { body: { name: 'x', kind: 'alarm' } }), {
    status: 404,
    body: { code: 'ALERT_RULE_NOT_FOUND' },
  });
  const other = await app.app.locations.create({ name: 'Other' });
  t.same((await client(app.url, other.token.token)('GET', '/api/alerts')).body, [], 'another location sees none');
  t.match(await client(app.url, other.token.token)('DELETE', `/api/alerts/${made.body.id}`), { status: 404 });
  t.equal((await api('DELETE', `/api/alerts/${made.body.id}`)).status, 200);
  t.same((await api('GET', '/api/alerts')).body, []);
  t.match(
    (await api<{ data: { action: string }[] }>('GET', '/api/audit?target_type=alert_rule')).body.data.map((e) => e.action),
    ['alert_rule.deleted', 'alert_rule.updated', 'alert_rule.created'],
  );
});

t.test('device_offline with two nodes: raised once, delivered to its webhook, cleared once', async (t) => {
  const received: { type: string; data: Record<string, unknown> }[] = [];
  const receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push(JSON.parse(body) as { type: string; data: Record<string, unknown> });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => receiver.close(() => resolve())));
  const port = (receiver.address() as { port: number }).port;

  const clock = fakeClock('2026-03-01T08:00:00.000Z');
  const one = await startApp(t, { clock, config: OPEN });
  const two = await startApp(t, { clock, config: OPEN, storeUrl: one.storeUrl });
  const api = client(one.url, one.token);
  const hook = await api<{ id: number }>('POST', '/api/webhooks', {
    body: { url: `http://127.0.0.1:${port}/alerts`, events: ['user.changed'] },
  });
  t.equal(hook.status, 201);
  const rule = (
    await api<Rule>('POST', '/api/alerts', {
      body: { name: 'Quiet', kind: 'device_offline', params: { minutes: 5 }, webhook_id: hook.body.id },
    })
  ).body;
  t.equal((await api('POST', '/api/devices', { body: { sn: 'OFF-1' } })).status, 201);
  const sim = createSimulatedDevice({ url: one.url, sn: 'OFF-1', protocol: 'v2', requestTimeoutMs: 10_000 });
  t.teardown(() => sim.stop());
  await sim.handshake();
  await sim.pollOnce();
  const events: AnyFeedEvent[] = [];
  const sub = one.app.feed.subscribe({ locationId: one.locationId }, (e) => void events.push(e));
  t.teardown(() => sub.close());
  const alerts = () => events.filter((e) => e.type.startsWith('alert.'));

  t.same(
    await Promise.all([evaluate(one, clock), evaluate(two, clock)]),
    [
      { raised: 0, cleared: 0 },
      { raised: 0, cleared: 0 },
    ],
    'heard from just now',
  );
  clock.advance(6 * 60_000);
  const rounds = await Promise.all([evaluate(one, clock), evaluate(two, clock), evaluate(one, clock)]);
  t.equal(
    rounds.reduce((n, r) => n + r.raised, 0),
    1,
    'raised once by the two nodes together',
  );
  t.same(
    await Promise.all([evaluate(two, clock), evaluate(one, clock)]),
    [
      { raised: 0, cleared: 0 },
      { raised: 0, cleared: 0 },
    ],
    'not again while it holds',
  );
  await waitFor(() => alerts().length >= 1, 5_000, 'alert.raised on the feed');
  t.match(alerts()[0], {
    type: 'alert.raised',
    data: {
      rule: { id: rule.id, kind: 'device_offline', webhook_id: hook.body.id },
      key: 'OFF-1',
      cleared_at: null,
      detail: { sn: 'OFF-1' },
    },
  });
  t.match((await api<Rule[]>('GET', '/api/alerts')).body[0]?.incidents, [{ key: 'OFF-1', detail: { sn: 'OFF-1' } }], 'open on the rule');
  await waitFor(() => received.some((r) => r.type === 'alert.raised'), 15_000, 'the webhook got it, though it lists only user.changed');

  await sim.pollOnce();
  await one.app.hub.presence.flush(); // the write-behind of last_seen, as its timer would
  const again = await Promise.all([evaluate(one, clock), evaluate(two, clock)]);
  t.equal(again[0].cleared + again[1].cleared, 1, 'cleared once, when heard again');
  await waitFor(() => alerts().length >= 2, 5_000, 'alert.cleared on the feed');
  t.match(alerts()[1], { type: 'alert.cleared', data: { key: 'OFF-1', cleared_at: clock.now().toISOString() } });
  t.equal(alerts().length, 2, 'one raise, one clear');
  await waitFor(() => received.some((r) => r.type === 'alert.cleared'), 15_000, 'the webhook got the clear');
});

t.test('what terminals and webhooks report: doors, alarms, refusal bursts, storage, a failing webhook', async (t) => {
  const failing = createServer((_req, res) => res.writeHead(500).end());
  await new Promise<void>((resolve) => failing.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => failing.close(() => resolve())));
  const clock = fakeClock('2026-03-01T08:00:00.000Z');
  const app = await startApp(t, { clock, config: OPEN });
  const api = client(app.url, app.token);
  const rule = async (kind: string, params: Record<string, number> = {}) =>
    (await api<Rule>('POST', '/api/alerts', { body: { name: kind, kind, params } })).body.id;
  const ids = {
    door: await rule('door_forced_or_held'),
    alarm: await rule('alarm', { minutes: 10 }),
    denied: await rule('denied_burst', { count: 3, minutes: 1 }),
    storage: await rule('storage_high', { percent: 90 }),
    webhook: await rule('webhook_failing'),
  };
  const open = async () => {
    const rules = (await api<Rule[]>('GET', '/api/alerts')).body;
    return Object.fromEntries(Object.entries(ids).map(([k, id]) => [k, rules.find((r) => r.id === id)?.incidents.map((i) => i.key) ?? []]));
  };

  // A v3 terminal reports door 1 forced and held open, door 2's tamper, and three refusals (event 27) in a minute.
  t.equal((await api('POST', '/api/devices', { body: { sn: 'AL-3' } })).status, 201);
  const v3 = createSimulatedDevice({ url: app.url, sn: 'AL-3', protocol: 'v3', requestTimeoutMs: 10_000 });
  t.teardown(() => v3.stop());
  await v3.handshake();
  const post = async (path: string, lines: string[], cookie = `token=${v3.session().token ?? ''}`) =>
    (await fetch(`${app.url}${path}`, { method: 'POST', headers: { cookie, 'content-type': 'text/plain' }, body: lines.join('\n') + '\n' }))
      .status;
  const rtlog = (i: number, event: number) =>
    `time=2026-03-01 08:00:0${i}\tpin=0\tcardno=0\teventaddr=1\tevent=${event}\tinoutstatus=0\tverifytype=0\tindex=${100 + i}`;
  t.equal(
    await post('/iclock/cdata?SN=AL-3&table=rtstate', ['time=2026-03-01 08:00:00\tsensor=02\trelay=00\talarm=1102000000000000']),
    200,
  );
  t.equal(await post('/iclock/cdata?SN=AL-3&table=rtlog', [rtlog(1, 27), rtlog(2, 27), rtlog(3, 27)]), 200);

  // A v2 terminal reports 950 of 1,000 users.
  t.equal((await api('POST', '/api/devices', { body: { sn: 'AL-2' } })).status, 201);
  const v2 = createSimulatedDevice({ url: app.url, sn: 'AL-2', protocol: 'v2', requestTimeoutMs: 10_000 });
  t.teardown(() => v2.stop());
  await v2.handshake();
  t.equal(
    await post('/iclock/cdata?SN=AL-2&table=options', ['UserCount=950,~MaxUserCount=1000,TransactionCount=10,~MaxAttLogCount=100000'], ''),
    200,
  );

  // A webhook whose receiver fails.
  const hook = await api<{ id: number }>('POST', '/api/webhooks', {
    body: { url: `http://127.0.0.1:${(failing.address() as { port: number }).port}/`, events: ['user.changed'] },
  });
  t.equal((await api('POST', '/api/users', { body: { pin: 1, first_name: 'Ann' } })).status, 201);

  clock.advance(1_000);
  let found = await open();
  for (let i = 0; i < 100 && found['webhook']?.length === 0; i++) {
    await evaluate(app, clock);
    found = await open();
    if (found['webhook']?.length === 0) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  t.same(found, { door: ['AL-3/1'], alarm: ['AL-3'], denied: ['AL-3'], storage: ['AL-2'], webhook: [String(hook.body.id)] });
  const rules = (await api<Rule[]>('GET', '/api/alerts')).body;
  t.match(rules.find((r) => r.id === ids.door)?.incidents[0]?.detail, { door: 1, condition: ['forced open', 'held open'] });
  t.match(rules.find((r) => r.id === ids.alarm)?.incidents[0]?.detail, { condition: ['tamper'] });
  t.match(rules.find((r) => r.id === ids.storage)?.incidents[0]?.detail, { percent: { users: 95 } });

  // The door closes and the alarm is cleared on the terminal; the refusals age out of their minute.
  t.equal(
    await post('/iclock/cdata?SN=AL-3&table=rtstate', ['time=2026-03-01 08:02:00\tsensor=01\trelay=00\talarm=0000000000000000']),
    200,
  );
  clock.advance(2 * 60_000);
  await evaluate(app, clock);
  found = await open();
  t.same([found['door'], found['alarm'], found['denied']], [[], [], []], 'cleared');
});

t.test('the alerts job evaluates on its own, every 15 s', async (t) => {
  const clock = fakeClock('2026-03-01T08:00:00.000Z');
  const app = await startApp(t, { clock, config: OPEN });
  const api = client(app.url, app.token);
  t.equal((await api('POST', '/api/alerts', { body: { name: 'Quiet', kind: 'device_offline', params: { minutes: 1 } } })).status, 201);
  t.equal((await api('POST', '/api/devices', { body: { sn: 'JOB-1' } })).status, 201, 'assigned, never heard from');
  const events: AnyFeedEvent[] = [];
  const sub = app.app.feed.subscribe({ locationId: app.locationId }, (e) => void events.push(e));
  t.teardown(() => sub.close());
  clock.advance(2 * 60_000);
  await waitFor(() => events.some((e) => e.type === 'alert.raised'), 25_000, 'the job’s round');
  t.match(
    events.find((e) => e.type === 'alert.raised'),
    { data: { key: 'JOB-1' } },
  );
});

t.test('sync_drift: a terminal that refuses its roster, in drift past the minutes', async (t) => {
  const s = await setup(t);
  t.equal((await s.api('POST', '/api/alerts', { name: 'Drift', kind: 'sync_drift', params: { minutes: 10 } })).status, 201);
  await s.terminal('DRIFT-1', 'v2', { refuseRate: 1 });
  t.equal((await s.api('POST', '/api/users', { pin: 31, first_name: 'Ref' })).status, 201);
  await s.until(async () => (await s.sync('DRIFT-1')).state === 'drift', 'drift');
  t.same(await evaluate(s.app, s.clock), { raised: 0, cleared: 0 }, 'not yet for the minutes');
  s.clock.advance(11 * 60_000);
  t.same(await evaluate(s.app, s.clock), { raised: 1, cleared: 0 });
  const rules = (await s.api('GET', '/api/alerts')).body as Rule[];
  t.match(rules[0]?.incidents, [{ key: 'DRIFT-1', detail: { sn: 'DRIFT-1', reason: /-3/ } }]);
});
