/**
 * Issue #15 "Door and alarm events kept": a simulated v3 terminal (src/simulator) registers, then
 * posts `rtlog` / `rtstate` uploads as its firmware would [PUSH-v3 §7.2, §7.3]; GET /api/events lists
 * them with structured fields, once however often they are re-sent, per location, filtered and
 * paged, for as long as attendance is kept. The same events arrive live on `events/<sn>` of the stream.
 */
import t, { type Test } from 'tap';
import { createSimulatedDevice } from '../../src/simulator/index.js';
import { bearer, DAY_MS, fakeClock, fetchJson, jsonBody, startApp, type FakeClock, type StartedApp } from '../helpers/app.js';
import { openStream, subscribe } from '../realtime/stream-client.js';

interface EventView {
  id: number;
  sn: string;
  type: string;
  event: number | null;
  meaning: string | null;
  door: number | null;
  pin: string | null;
  card_no: string | null;
  verify_type: string | null;
  in_out: number | null;
  device_index: number | null;
  timestamp: string;
  local_time: string;
  state: { sensor: string; relay: string; alarm: string } | null;
  extra: Record<string, string> | null;
  created_at: string;
}
interface EventPage {
  data: EventView[];
  total: number;
  page: number;
  limit: number;
  has_next: boolean;
}

interface Rig {
  readonly started: StartedApp;
  readonly clock: FakeClock;
  readonly token: string;
  api<T = unknown>(path: string, token?: string): Promise<{ status: number; body: T }>;
  /** A registered v3 terminal of the bootstrap location; `post` sends an upload with its registration token. */
  terminal(sn: string, token?: string): Promise<{ post(table: string, lines: string[]): Promise<{ status: number; text: string }> }>;
}

async function rig(t: Test, config: Record<string, unknown> = {}): Promise<Rig> {
  const clock = fakeClock('2026-03-01T08:00:00.000Z');
  const started = await startApp(t, { clock, config: { longpollS: 0, ...config } });
  const api = async <T>(path: string, token = started.token) => {
    const { res, body } = await fetchJson(`${started.url}${path}`, { headers: bearer(token) });
    return { status: res.status, body: body as T };
  };
  return {
    started,
    clock,
    token: started.token,
    api,
    async terminal(sn, token = started.token) {
      const created = await fetchJson(`${started.url}/api/devices`, jsonBody('POST', { sn }, bearer(token)));
      if (created.res.status !== 201) throw new Error(`could not assign ${sn}: ${created.res.status}`);
      const sim = createSimulatedDevice({ url: started.url, sn, protocol: 'v3', requestTimeoutMs: 10_000 });
      t.teardown(() => sim.stop());
      await sim.handshake();
      const cookie = `token=${sim.session().token ?? ''}`;
      return {
        async post(table, lines) {
          const res = await fetch(`${started.url}/iclock/cdata?SN=${sn}&table=${table}`, {
            method: 'POST',
            headers: { cookie, 'content-type': 'text/plain' },
            body: lines.join('\n') + '\n',
          });
          return { status: res.status, text: await res.text() };
        },
      };
    },
  };
}

// [PUSH-v3 §7.2] keys by name, order as the firmware likes; §7.7 codes.
const RTLOG = [
  'time=2026-03-01 09:00:00\tpin=0\tcardno=0\teventaddr=1\tevent=200\tinoutstatus=0\tverifytype=0\tindex=11',
  'time=2026-03-01 09:00:05\tpin=1001\tcardno=0\teventaddr=1\tevent=0\tinoutstatus=1\tverifytype=15\tindex=12\tsitecode=0\tlinkid=0\ttemperature=36.6',
  'time=2026-03-01 09:00:09\tpin=0\tcardno=4455667\teventaddr=2\tevent=27\tinoutstatus=0\tverifytype=4\tindex=13',
  'time=2026-03-01 09:01:00\tpin=0\tcardno=0\teventaddr=2\tevent=102\tinoutstatus=0\tverifytype=0\tindex=14',
];
const RTSTATE = ['time=2026-03-01 09:02:00\tsensor=01\trelay=00\talarm=0200000000000000\tdoor=01'];

t.test('rtlog and rtstate uploads are kept with structured fields and listed newest first', async (t) => {
  const r = await rig(t);
  await r.started.app.locations.update(r.started.locationId, { timezone: 'Europe/Berlin' });
  const dev = await r.terminal('DOOR01');
  t.same(await dev.post('rtlog', RTLOG), { status: 200, text: 'OK' }, 'the terminal is answered OK');
  t.same(await dev.post('rtstate', RTSTATE), { status: 200, text: 'OK' });

  const { status, body } = await r.api<EventPage>('/api/events');
  t.equal(status, 200);
  t.equal(body.total, 5);
  t.same(
    body.data.map((e) => [e.type, e.event]),
    [
      ['state', null],
      ['alarm', 102],
      ['error', 27],
      ['normal', 0],
      ['normal', 200],
    ],
    'newest first, typed by code range',
  );
  const [state, alarm, unknownUser, verified, opened] = body.data as [EventView, EventView, EventView, EventView, EventView];
  t.match(
    opened,
    {
      sn: 'DOOR01',
      event: 200,
      meaning: 'door opened',
      door: 1,
      pin: null,
      card_no: null,
      in_out: 0,
      device_index: 11,
      local_time: '2026-03-01 09:00:00',
      timestamp: '2026-03-01T08:00:00.000Z',
      state: null,
      extra: null,
    },
    'door opened, local Berlin time beside UTC',
  );
  t.match(
    verified,
    {
      event: 0,
      meaning: 'normal verification open',
      pin: '1001',
      verify_type: '15',
      in_out: 1,
      extra: { sitecode: '0', linkid: '0', temperature: '36.6' },
    },
    'unknown keys kept in extra',
  );
  t.match(unknownUser, { event: 27, meaning: 'user not registered', door: 2, card_no: '4455667', verify_type: '4' });
  t.match(
    alarm,
    { type: 'alarm', event: 102, meaning: null, door: 2 },
    'an alarm code the reference does not name: typed, no invented meaning',
  );
  t.match(state, {
    type: 'state',
    event: null,
    meaning: null,
    door: 1,
    state: { sensor: '01', relay: '00', alarm: '0200000000000000' },
    timestamp: '2026-03-01T08:02:00.000Z',
  });
  t.notOk('location_id' in opened || 'dedup_key' in opened, 'no internal fields');

  const attendance = await r.api<{ total: number; data: { pin: string }[] }>('/api/attendance');
  t.same(
    attendance.body.data.map((a) => a.pin),
    ['1001'],
    'the verification is an attendance record as well; the door events are not',
  );
});

t.test('a re-sent upload is kept once; each location sees only its own; filters and paging', async (t) => {
  const r = await rig(t);
  const other = await r.started.app.locations.create({ name: 'Other' });
  const a1 = await r.terminal('A1');
  const a2 = await r.terminal('A2');
  const b1 = await r.terminal('B1', other.token.token);
  await a1.post('rtlog', RTLOG);
  t.same(await a1.post('rtlog', RTLOG), { status: 200, text: 'OK' }, 'a re-sent batch is acknowledged');
  await a1.post('rtlog', [RTLOG[0] as string, RTLOG[0] as string]);
  await a2.post('rtstate', RTSTATE);
  await b1.post('rtlog', RTLOG);

  const all = await r.api<EventPage>('/api/events?limit=100');
  t.equal(all.body.total, 5, 'four rtlog lines of A1 once each, and the state of A2');
  t.notOk(
    all.body.data.some((e) => e.sn === 'B1'),
    "B's terminal is not in A's list",
  );
  const b = await r.api<EventPage>('/api/events', other.token.token);
  t.same(
    b.body.data.map((e) => e.sn),
    ['B1', 'B1', 'B1', 'B1'],
    'B sees its own',
  );

  const q = async (query: string) => (await r.api<EventPage>(`/api/events?${query}`)).body;
  t.same(
    (await q('sn=A2')).data.map((e) => e.type),
    ['state'],
  );
  t.same(
    (await q('type=alarm')).data.map((e) => e.event),
    [102],
  );
  t.same(
    (await q('type=normal&sn=A1')).data.map((e) => e.event),
    [0, 200],
  );
  t.same(
    (await q('from=2026-03-01T09:00:05Z&to=2026-03-01T09:00:09Z')).data.map((e) => e.event),
    [27, 0],
    'from/to inclusive (this location keeps UTC)',
  );
  t.equal((await q('from=2026-03-02')).total, 0, 'a date is UTC midnight');
  const page = await q('limit=2&page=2');
  t.match(page, { total: 5, page: 2, limit: 2, has_next: true });
  t.same(
    page.data.map((e) => e.event),
    [27, 0],
  );

  for (const bad of ['type=fire', 'from=yesterday', 'limit=0', 'to=2026-02-30']) {
    const res = await r.api<{ code: string }>(`/api/events?${bad}`);
    t.equal(res.status, 422, `${bad}: 422`);
    t.equal(res.body.code, 'VALIDATION_FAILED');
  }
  t.equal((await r.api('/api/events', 'bg_' + 'x'.repeat(32))).status, 401, 'needs a token');
});

t.test('door events arrive live on events/<sn>, once, and are in the OpenAPI document', async (t) => {
  const r = await rig(t);
  const dev = await r.terminal('LIVE1');
  const client = await openStream(t, r.started.url, { token: r.token });
  await subscribe(client, ['events/+']);
  await dev.post('rtlog', RTLOG.slice(0, 2));
  const first = await client.next((m) => m.topic === 'events/LIVE1', 'first door event');
  const second = await client.next((m) => m.topic === 'events/LIVE1', 'second door event');
  // The payload is the item GET /api/events returns: structured fields, not a formatted string.
  t.match(first.payload, {
    sn: 'LIVE1',
    door: 1,
    event: 200,
    meaning: 'door opened',
    type: 'normal',
    pin: null,
    local_time: '2026-03-01 09:00:00',
  });
  t.match(second.payload, { sn: 'LIVE1', event: 0, pin: '1001' });
  await dev.post('rtlog', RTLOG.slice(0, 2));
  await dev.post('rtstate', RTSTATE);
  const state = await client.next((m) => m.topic === 'events/LIVE1', 'the state report');
  t.match(
    state.payload,
    { door: 1, type: 'state', event: null, state: { sensor: /^01/ } },
    'the re-sent lines were not announced again: the next event is the state',
  );

  const doc = await r.api<{ paths: Record<string, { get?: { parameters?: { name: string }[] } }> }>('/api/openapi.json');
  const op = doc.body.paths['/api/events']?.get;
  t.ok(op, 'GET /api/events is documented');
  t.same(op?.parameters?.map((p) => p.name).sort(), ['from', 'limit', 'page', 'sn', 'to', 'type']);
});

t.test('door events follow the attendance retention', async (t) => {
  const r = await rig(t, { retentionDays: 30 });
  const dev = await r.terminal('OLD1');
  await dev.post('rtlog', RTLOG.slice(0, 1));
  r.clock.advance(20 * DAY_MS);
  await dev.post('rtlog', ['time=2026-03-21 09:00:00\tpin=0\tcardno=0\teventaddr=1\tevent=201\tinoutstatus=0\tverifytype=0\tindex=99']);
  r.clock.advance(15 * DAY_MS);
  await r.started.app.hub.pruneRetention();
  const left = await r.api<EventPage>('/api/events');
  t.same(
    left.body.data.map((e) => [e.event, e.meaning]),
    [[201, 'door closed']],
    'the event older than 30 days is gone, the newer one stays',
  );
});
