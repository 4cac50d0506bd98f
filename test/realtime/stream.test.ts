/**
 * Issue #15 "Verified by", WebSocket part: real `ws` clients against GET /api/stream of the real
 * app, events made by the REST API and simulated terminals (src/simulator) going through the real
 * feed. Only the own location's events, wildcards, the retained snapshot, resume after a reconnect,
 * invalid client messages, refusals before the upgrade, and a client that stops reading is cut off.
 */
import t, { type Test } from 'tap';
import { createSimulatedDevice } from '../../src/simulator/index.js';
import {
  ADMIN_TOKEN,
  bearer,
  fakeClock,
  fetchJson,
  jsonBody,
  startApp,
  TEST_STORE,
  waitFor,
  type FakeClock,
  type StartedApp,
} from '../helpers/app.js';
import { openStream, refusedUpgrade, subscribe, type StreamClient, type StreamMessage } from './stream-client.js';

interface Rig {
  readonly started: StartedApp;
  readonly clock: FakeClock;
  readonly a: { id: number; token: string };
  readonly b: { id: number; token: string };
  api(token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: unknown }>;
  connect(token: string): Promise<StreamClient>;
}

async function rig(t: Test): Promise<Rig> {
  const clock = fakeClock('2026-03-01T08:00:00.000Z');
  const started = await startApp(t, { clock, config: { longpollS: 0, onlineThresholdS: 5, adminToken: ADMIN_TOKEN } });
  const other = await started.app.locations.create({ name: 'Other' });
  return {
    started,
    clock,
    a: { id: started.locationId, token: started.token },
    b: { id: other.location.id, token: other.token.token },
    async api(token, method, path, body) {
      const { res, body: out } = await fetchJson(
        `${started.url}${path}`,
        body === undefined ? { method, headers: bearer(token) } : jsonBody(method, body, bearer(token)),
      );
      return { status: res.status, body: out };
    },
    connect: (token) => openStream(t, started.url, { token }),
  };
}

async function assign(r: Rig, token: string, sn: string): Promise<void> {
  const created = await r.api(token, 'POST', '/api/devices', { sn });
  if (created.status !== 201) throw new Error(`could not assign ${sn}: ${created.status} ${JSON.stringify(created.body)}`);
}

async function queueReboot(r: Rig, token: string, sn: string): Promise<number> {
  const res = await r.api(token, 'POST', '/api/commands', { sn, command: 'reboot' });
  if (res.status !== 201) throw new Error(`command refused: ${res.status} ${JSON.stringify(res.body)}`);
  return (res.body as { id: number }).id;
}

/** Everything the server sent before this answer has arrived (one TCP stream, in order). */
async function barrier(client: StreamClient): Promise<void> {
  await subscribe(client, ['barrier/never']);
}

t.test('refusals happen before the upgrade, with the API error body; three ways to give the token', async (t) => {
  const r = await rig(t);
  const url = r.started.url;
  t.match(
    await refusedUpgrade(url),
    { status: 401, upgraded: false, body: { code: 'UNAUTHORIZED', detail: 'Missing bearer token' } },
    'no token',
  );
  t.match(await refusedUpgrade(url, { token: 'bg_' + 'x'.repeat(32) }), { status: 401, body: { code: 'UNAUTHORIZED' } }, 'unknown token');
  t.match(
    await refusedUpgrade(url, { token: 'not-a-token', via: 'query' }),
    { status: 401, body: { code: 'UNAUTHORIZED' } },
    'malformed token in the query',
  );
  t.match(
    await refusedUpgrade(url, { protocols: ['bearer'] }),
    { status: 401, body: { code: 'UNAUTHORIZED' } },
    '"bearer" subprotocol without a token',
  );
  t.match(
    await refusedUpgrade(url, { token: r.a.token, headers: { authorization: `Bearer ${r.a.token}` }, via: 'query' }),
    { status: 401, body: { code: 'UNAUTHORIZED', detail: /once/ } },
    'two tokens at once',
  );
  const revoked = await r.started.app.locations.issueToken({ location_id: r.a.id });
  await r.started.app.locations.revokeToken(revoked.id);
  t.match(
    await refusedUpgrade(url, { token: revoked.token }),
    { status: 401, body: { code: 'UNAUTHORIZED', detail: 'Token revoked' } },
    'revoked token',
  );
  await r.started.app.locations.update(r.b.id, { is_active: false });
  t.match(await refusedUpgrade(url, { token: r.b.token }), { status: 403, body: { code: 'LOCATION_DISABLED' } }, 'disabled location');
  t.equal(r.started.app.http.openWebSockets, 0, 'no WebSocket was opened by any of them');

  const plain = await fetchJson(`${url}/api/stream`, { headers: bearer(r.a.token) });
  t.match({ status: plain.res.status, body: plain.body }, { status: 400, body: { code: 'BAD_REQUEST' } }, 'a plain GET is told to upgrade');

  for (const via of ['header', 'protocol', 'query'] as const) {
    const client = await openStream(t, url, { token: r.a.token, via });
    t.equal(client.ws.protocol, via === 'protocol' ? 'bearer' : '', `${via}: accepted; subprotocol echoed only when it carried the token`);
    t.match(await subscribe(client, ['commands/#']), { op: 'subscribed', topics: ['commands/#'] });
    const metrics = await fetchJson(`${url}/metrics`, { headers: bearer(ADMIN_TOKEN) });
    t.match(String(metrics.body), /^biogate_websocket_connections(\{[^}]*\})? 1$/m, 'counted in /metrics');
    client.close();
    await client.closed;
  }
});

t.test('only the own location flows, and only what the filters match', async (t) => {
  const r = await rig(t);
  await assign(r, r.a.token, 'ADEV1');
  await assign(r, r.b.token, 'BDEV1');
  const aCommands = await r.connect(r.a.token);
  const aAvailability = await r.connect(r.a.token);
  const bAll = await r.connect(r.b.token);
  await subscribe(aCommands, ['commands/+']);
  await subscribe(aAvailability, ['devices/+/availability']);
  await subscribe(bAll);

  const inB = await queueReboot(r, r.b.token, 'BDEV1');
  const inA = await queueReboot(r, r.a.token, 'ADEV1');
  const gotB = await bAll.next((m) => m.topic === `commands/${inB}`, "B's command");
  t.match(gotB, { topic: `commands/${inB}`, payload: { id: inB, sn: 'BDEV1', status: 'pending', command: 'reboot' } });
  t.type(gotB.seq, 'number');
  const gotA = await aCommands.next((m) => typeof m.topic === 'string', "A's command");
  t.match(
    gotA,
    { topic: `commands/${inA}`, payload: { id: inA, sn: 'ADEV1', status: 'pending' } },
    "A's first event is its own command, not B's",
  );
  t.notOk('hash' in (gotA.payload as object) || 'wire' in (gotA.payload as object), 'the public view only');

  await barrier(aCommands);
  await barrier(aAvailability);
  await barrier(bAll);
  t.notOk(
    aCommands.messages.some((m) => m.topic === `commands/${inB}`),
    "A never sees B's command",
  );
  t.notOk(
    bAll.messages.some((m) => m.topic === `commands/${inA}`),
    "B never sees A's command",
  );
  t.notOk(
    aAvailability.messages.some((m) => typeof m.topic === 'string' && m.topic.startsWith('commands/')),
    'devices/+/availability does not match commands',
  );

  // Unsubscribing stops the flow.
  aCommands.send({ op: 'unsubscribe', topics: ['commands/+'] });
  t.match(await aCommands.next((m) => m.op === 'unsubscribed', 'unsubscribed'), { topics: ['commands/+'] });
  const later = await queueReboot(r, r.a.token, 'ADEV1');
  await aAvailability.next(() => false, 'nothing', 200).catch(() => undefined);
  await barrier(aCommands);
  t.notOk(
    aCommands.messages.some((m) => m.topic === `commands/${later}`),
    'no event after unsubscribe',
  );
});

t.test('subscribe sends the retained topics first, then live changes', async (t) => {
  const r = await rig(t);
  await assign(r, r.a.token, 'SNAP1');
  await assign(r, r.a.token, 'SNAP2');
  await assign(r, r.b.token, 'OTHER1');
  const sim = createSimulatedDevice({ url: r.started.url, sn: 'SNAP1', protocol: 'v3', requestTimeoutMs: 10_000 });
  t.teardown(() => sim.stop());
  await sim.handshake();
  while ((await sim.pollOnce()) > 0);
  await r.started.app.feed.settled(); // the terminal's own online event is behind us, not a live message below

  const client = await r.connect(r.a.token);
  client.send({ op: 'subscribe', topics: ['devices/#'] });
  const snapshot: StreamMessage[] = [];
  for (;;) {
    const m = await client.next(() => true, 'snapshot or ack');
    if (m.op === 'subscribed') break;
    snapshot.push(m);
  }
  const byTopic = new Map(snapshot.map((m) => [m.topic, m]));
  t.same(
    [...byTopic.keys()].sort(),
    [
      'devices/SNAP1/availability',
      'devices/SNAP1/state',
      'devices/SNAP1/sync',
      'devices/SNAP2/availability',
      'devices/SNAP2/state',
      'devices/SNAP2/sync',
    ],
    "the location's devices only",
  );
  t.ok(
    snapshot.every((m) => m.retained === true && typeof m.seq === 'number'),
    'marked retained, with the seq they are current at',
  );
  t.equal(byTopic.get('devices/SNAP1/availability')?.payload, 'online', 'the terminal that spoke is online');
  t.equal(byTopic.get('devices/SNAP2/availability')?.payload, 'offline', 'the silent one is offline');
  t.match(
    byTopic.get('devices/SNAP1/state')?.payload,
    { serial_number: 'SNAP1', location_id: r.a.id, is_active: true, version: '3.0.0' },
    'state = the GET /api/devices view',
  );
  const rest = await r.api(r.a.token, 'GET', '/api/devices/SNAP1');
  t.same(
    Object.keys(byTopic.get('devices/SNAP1/state')?.payload as object).sort(),
    Object.keys(rest.body as object)
      .filter((k) => k !== 'registry_code' && k !== 'session_id' && k !== 'sync')
      .sort(),
    'same fields as the REST view, without the registry code and session id that log in as the terminal (issue #32); the roster sync state has its own topic devices/<sn>/sync (issue #31)',
  );

  const narrow = await r.connect(r.a.token);
  narrow.send({ op: 'subscribe', topics: ['devices/+/availability'] });
  await narrow.next((m) => m.op === 'subscribed', 'ack');
  t.same(
    narrow.messages
      .filter((m) => m.retained)
      .map((m) => m.topic)
      .sort(),
    ['devices/SNAP1/availability', 'devices/SNAP2/availability'],
    'a narrower filter gets only what it matches',
  );
  const one = await r.connect(r.a.token);
  one.send({ op: 'subscribe', topics: ['+/SNAP2/state', 'commands/#'] });
  await one.next((m) => m.op === 'subscribed', 'ack');
  t.same(
    one.messages.filter((m) => m.retained).map((m) => m.topic),
    ['devices/SNAP2/state'],
    'one device by serial, and nothing retained for commands/#',
  );

  // Live: the terminal goes quiet past the threshold.
  r.clock.advance(10_000);
  await r.started.app.hub.sweepPresence();
  const offline = await client.next((m) => m.topic === 'devices/SNAP1/availability' && !m.retained, 'live offline');
  t.equal(offline.payload, 'offline');
  t.ok((offline.seq as number) > 0);
  t.notOk('retained' in offline, 'live messages are not marked retained');
});

t.test('resume after a reconnect replays what was missed, in order, once', async (t) => {
  const r = await rig(t);
  await assign(r, r.a.token, 'RES1');
  const first = await r.connect(r.a.token);
  await subscribe(first, ['commands/#']);
  const c1 = await queueReboot(r, r.a.token, 'RES1');
  const seen = await first.next((m) => m.topic === `commands/${c1}`, 'first command');
  first.close();
  await first.closed;

  const missed = [await queueReboot(r, r.a.token, 'RES1'), await queueReboot(r, r.a.token, 'RES1')];
  await r.started.app.feed.settled(); // missed for real: in the feed before the second connection exists
  const second = await r.connect(r.a.token);
  await subscribe(second, ['commands/#']);
  second.send({ op: 'resume', after: seen.seq });
  t.match(await second.next((m) => m.op === 'resumed', 'resumed'), { after: seen.seq });
  const replayed = [
    await second.next((m) => typeof m.topic === 'string', 'replay 1'),
    await second.next((m) => typeof m.topic === 'string', 'replay 2'),
  ];
  t.same(
    replayed.map((m) => m.topic),
    missed.map((id) => `commands/${id}`),
    'the missed commands, in order',
  );
  t.ok((replayed[0]?.seq as number) > (seen.seq as number) && (replayed[1]?.seq as number) > (replayed[0]?.seq as number), 'seqs increase');

  // Live events keep coming after the replay, and a second resume does not repeat anything.
  const live = await queueReboot(r, r.a.token, 'RES1');
  await second.next((m) => m.topic === `commands/${live}`, 'live after replay');
  second.send({ op: 'resume', after: seen.seq });
  await second.next((m) => m.op === 'resumed', 'resumed again');
  await barrier(second);
  const seqs = second.messages.filter((m) => typeof m.topic === 'string').map((m) => m.seq);
  t.same(seqs, [...new Set(seqs)], 'no seq delivered twice');
  t.equal(seqs.length, 3);
});

t.test('invalid client messages get an error message, and the stream goes on', async (t) => {
  const r = await rig(t);
  const client = await r.connect(r.a.token);
  const error = () => client.next((m) => m.op === 'error', 'error');
  client.send('not json');
  t.match(await error(), { op: 'error', error: { code: 'BAD_REQUEST', detail: 'The message is not valid JSON' } });
  client.send('[1,2]');
  t.match(await error(), { error: { code: 'BAD_REQUEST' } }, 'not an object');
  client.send({ op: 'dance' });
  t.match(await error(), { error: { code: 'VALIDATION_FAILED', detail: [{ loc: ['op'] }] } }, 'unknown op');
  client.send({ op: 'subscribe', topics: ['devices/#/state', 'ok/+', 'a+/b', 7] });
  t.match(
    await error(),
    { error: { code: 'VALIDATION_FAILED', detail: [{ loc: ['topics', 0] }, { loc: ['topics', 2] }, { loc: ['topics', 3] }] } },
    'every bad filter is named',
  );
  client.send({ op: 'subscribe', topics: [] });
  t.match(await error(), { error: { code: 'VALIDATION_FAILED' } }, 'empty list');
  client.send({ op: 'resume', after: -1 });
  t.match(await error(), { error: { code: 'VALIDATION_FAILED', detail: [{ loc: ['after'] }] } });
  client.send({ op: 'resume', after: 1, topics: [] });
  t.match(await error(), { error: { code: 'VALIDATION_FAILED', detail: [{ loc: ['topics'] }] } }, 'unknown field');
  client.ws.send(Buffer.from([1, 2, 3]), { binary: true });
  t.match(await error(), { error: { code: 'BAD_REQUEST', detail: /text frames/ } }, 'binary frame');
  client.send({ op: 'subscribe', topics: Array.from({ length: 65 }, (_, i) => `x/${i}`) });
  t.match(await error(), { error: { code: 'VALIDATION_FAILED' } }, 'too many filters');
  t.match(await subscribe(client, ['commands/#']), { op: 'subscribed' }, 'still connected and working');

  const huge = await r.connect(r.a.token);
  huge.send({ op: 'subscribe', topics: ['x'.repeat(20_000)] });
  t.match(
    await huge.closed,
    { code: 1009, reason: /larger than 16384 bytes/ },
    'a frame above the 16 KiB limit closes the connection (message too big)',
  );
  const giant = await r.connect(r.a.token);
  giant.send('x'.repeat(100_000));
  t.ok((await giant.closed).code >= 1006, 'far above it, the connection is dropped');
  t.match(await subscribe(client, ['attendance']), { op: 'subscribed' }, 'other connections go on');
});

// The store only paces how fast events are made; the limit under test is the WebSocket layer's. On the
// MongoDB test server the uploads are too slow to fill the kernel buffers before the idle timeout.
const floodSkip = TEST_STORE === 'mongodb' && 'SQLite-only: MongoDB test-server uploads too slow to outrun the idle timeout';
t.test('a client that stops reading is cut off with a reason; readers and terminals are unaffected', { skip: floodSkip }, async (t) => {
  const r = await rig(t);
  await assign(r, r.a.token, 'FLOOD1');
  const sim = createSimulatedDevice({ url: r.started.url, sn: 'FLOOD1', protocol: 'v2', requestTimeoutMs: 10_000 });
  t.teardown(() => sim.stop());
  await sim.handshake();

  const slow = await r.connect(r.a.token);
  await subscribe(slow, ['attendance']);
  const reader = await r.connect(r.a.token);
  await subscribe(reader, ['attendance']);
  slow.ws.pause(); // stops reading from the socket: the kernel buffers fill, then the server's

  // A terminal uploads a backlog while the dashboard does not read: batches of attendance.
  const BATCH = 4000;
  let sent = 0;
  const start = Date.UTC(2026, 1, 1);
  for (let batch = 0; batch < 25 && r.started.app.http.openWebSockets === 2; batch++) {
    const lines = Array.from({ length: BATCH }, (_, i) => {
      const at = new Date(start + (sent + i) * 1000).toISOString().slice(0, 19).replace('T', ' ');
      return `${1000 + ((sent + i) % 50)}\t${at}\t0\t1\t0\t0\t0`;
    });
    const res = await fetch(`${r.started.url}/iclock/cdata?SN=FLOOD1&table=ATTLOG&Stamp=${batch + 1}`, {
      method: 'POST',
      body: lines.join('\n'),
    });
    t.equal(res.status, 200, `batch ${batch + 1} acknowledged to the terminal`);
    await res.text();
    sent += BATCH;
  }
  await waitFor(() => r.started.app.http.openWebSockets === 1, 10_000, 'the slow client to be disconnected');
  slow.ws.resume();
  const { code, reason } = await slow.closed;
  t.equal(code, 1008, 'policy violation');
  t.match(reason, /too slow/, 'with the reason');

  await waitFor(
    () => reader.messages.filter((m) => m.topic === 'attendance').length === sent,
    30_000,
    'the reading client to get every record',
  );
  t.pass(`the reading client got all ${sent} records`);
  t.equal((await r.api(r.a.token, 'GET', '/api/me')).status, 200, 'the API still answers');
});

t.test('shutdown ends every stream with 1001 "going away"', async (t) => {
  const r = await rig(t);
  const client = await r.connect(r.a.token);
  await subscribe(client);
  const closing = r.started.close();
  t.match(await client.closed, { code: 1001, reason: 'server shutting down' });
  await closing;
  t.equal(r.started.app.http.openWebSockets, 0);
});

t.test('a token revoked or expired while streaming ends the stream (1008) at the next check', async (t) => {
  const r = await rig(t);
  const revoked = await r.started.app.locations.issueToken({ location_id: r.a.id });
  const expiring = await r.started.app.locations.issueToken({ location_id: r.a.id, expires_in_days: 1 });
  const doomed = await r.connect(revoked.token);
  const expires = await r.connect(expiring.token);
  const kept = await r.connect(r.a.token);
  for (const c of [doomed, expires, kept]) await subscribe(c);
  await r.started.app.stream.recheck();
  t.equal(r.started.app.http.openWebSockets, 3, 'valid tokens keep streaming');
  await r.started.app.locations.revokeToken(revoked.id);
  r.clock.advance(2 * 86_400_000);
  await r.started.app.stream.recheck();
  t.match(await doomed.closed, { code: 1008, reason: /UNAUTHORIZED: Token revoked/ });
  t.match(await expires.closed, { code: 1008, reason: /UNAUTHORIZED: Token expired/ });
  t.match(await subscribe(kept, ['commands/#']), { op: 'subscribed' }, 'the others go on');
});
