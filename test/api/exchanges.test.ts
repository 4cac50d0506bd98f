/**
 * Issue #36 item 2, the terminal exchange log: a simulated v2 terminal handshakes, polls, uploads a punch and a
 * line that does not decode, and posts a refused command result; GET /api/devices/{sn}/exchanges lists what it
 * asked and was answered, newest first, identical idle polls as one run, without bodies; another location does
 * not see it, and a second node on the same store does (the log is written behind, not kept per node).
 */
import t from 'tap';
import { createSimulatedDevice } from '../../src/simulator/index.js';
import { fakeClock, startApp } from '../helpers/app.js';
import { client, gateway } from './client.js';

interface Exchange {
  at: string;
  first_at: string;
  repeat: number;
  method: string;
  endpoint: string;
  table: string | null;
  records: number | null;
  status: number;
  answer_bytes: number;
  error: string | null;
}
type Exchanges = { count: number; data: Exchange[] };

const SN = 'EXLOG0001';

t.test('a terminal’s exchanges: runs of idle polls, uploads, refusals; scoped per location; seen from another node', async (t) => {
  const clock = fakeClock('2026-03-01T08:00:00.000Z');
  const g = await gateway(t, { clock, config: { longpollS: 0 } });
  const { a } = g;
  t.equal((await a.api('POST', '/api/devices', { body: { sn: SN } })).status, 201);
  const sim = createSimulatedDevice({ url: g.url, sn: SN, protocol: 'v2', requestTimeoutMs: 10_000 });
  t.teardown(() => sim.stop());
  await sim.handshake();
  for (let i = 0; i < 3; i++) {
    clock.advance(1_000);
    await sim.pollOnce();
  }
  clock.advance(1_000);
  t.ok(await sim.punch('4711', '2026-03-01 09:00:00'), 'the punch was accepted');
  const post = (path: string, body: string) =>
    fetch(`${g.url}/iclock/${path}`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body }).then(async (r) => ({
      status: r.status,
      text: await r.text(),
    }));
  clock.advance(1_000);
  t.equal((await post(`cdata?SN=${SN}&table=ATTLOG&Stamp=1`, 'this is not a punch\n')).status, 200);
  clock.advance(1_000);
  t.equal((await post(`devicecmd?SN=${SN}`, 'ID=77&Return=-1002&CMD=DATA\n')).status, 200);

  const listed = await a.api<Exchanges>('GET', `/api/devices/${SN}/exchanges`);
  t.equal(listed.status, 200);
  const data = listed.body.data;
  t.equal(listed.body.count, data.length);
  t.notOk(JSON.stringify(listed.body).includes('not a punch'), 'no request body is kept');
  t.notOk(JSON.stringify(listed.body).includes('4711'), 'not even a PIN from an upload');
  t.same(
    Object.keys(data[0] ?? {}).sort(),
    ['answer_bytes', 'at', 'endpoint', 'error', 'first_at', 'method', 'records', 'repeat', 'status', 'table'],
    'the fields of an exchange',
  );
  const times = data.map((e) => e.at);
  t.same(times, [...times].sort().reverse(), 'newest first');

  const [refused, garbage, punch] = data;
  t.match(refused, { method: 'POST', endpoint: 'devicecmd', records: 1, status: 200, table: null });
  t.match(refused?.error, /1 command\(s\) refused \(first: ID=77 Return=-1002\)/);
  t.match(garbage, { method: 'POST', endpoint: 'cdata', table: 'ATTLOG', records: 1, status: 200 });
  t.match(garbage?.error, /1 line\(s\) could not be decoded/);
  t.match(punch, { method: 'POST', endpoint: 'cdata', table: 'ATTLOG', records: 1, status: 200, error: null, repeat: 1 });
  t.ok((punch?.answer_bytes ?? 0) > 0, 'the answer’s length');
  const polls = data.find((e) => e.endpoint === 'getrequest');
  t.ok(polls, 'the idle polls are listed');
  t.ok((polls?.repeat ?? 0) >= 3, `identical idle polls are one run (repeat ${polls?.repeat})`);
  t.ok((polls?.first_at ?? '') < (polls?.at ?? ''), 'a run spans from its first poll to its last');
  t.equal(data.filter((e) => e.endpoint === 'getrequest').length, 1, 'one entry for the run, not one per poll');
  t.ok(
    data.some((e) => e.method === 'GET' && e.endpoint === 'cdata' && e.records === null),
    'the handshake',
  );

  t.equal((await a.api<Exchanges>('GET', `/api/devices/${SN}/exchanges?limit=2`)).body.data.length, 2, 'limit');
  for (const limit of ['0', '201', 'x'])
    t.match(
      await a.api('GET', `/api/devices/${SN}/exchanges?limit=${limit}`),
      { status: 422, body: { code: 'VALIDATION_FAILED' } },
      `limit=${limit}`,
    );
  const b = await g.tenant('B');
  t.match(await b.api('GET', `/api/devices/${SN}/exchanges`), { status: 404, body: { code: 'DEVICE_NOT_FOUND' } }, 'another location');
  t.match(await a.api('GET', '/api/devices/NOSUCH1/exchanges'), { status: 404, body: { code: 'DEVICE_NOT_FOUND' } });

  // A second node on the same store reads what the first wrote (without asking it to flush).
  const other = await startApp(t, { clock, storeUrl: g.started.storeUrl, config: { longpollS: 0 } });
  const fromOther = await client(other.url, a.token)<Exchanges>('GET', `/api/devices/${SN}/exchanges`);
  t.same(
    fromOther.body.data.map((e) => [e.endpoint, e.repeat]),
    data.map((e) => [e.endpoint, e.repeat]),
    'the other node lists the same',
  );
  // The terminal polls again. A new entry reaches the other node within a flush (2 s); a run that only grew is
  // written by the timer at most every 30 s (the runtime's clock), and at once when its own node is read.
  const newest = async (node: string) =>
    (await client(node, a.token)<Exchanges>('GET', `/api/devices/${SN}/exchanges?limit=1`)).body.data[0];
  const until = async (node: string, ok: (e: Exchange | undefined) => boolean) => {
    let e: Exchange | undefined;
    for (let i = 0; i < 60 && !ok((e = await newest(node))); i++) await new Promise((r) => setTimeout(r, 100));
    return e;
  };
  clock.advance(1_000);
  await sim.pollOnce();
  clock.advance(1_000);
  await sim.pollOnce();
  t.match(
    await until(other.url, (e) => e?.endpoint === 'getrequest'),
    { endpoint: 'getrequest' },
    'a new run after the refusal, written behind',
  );
  t.match(await newest(g.url), { endpoint: 'getrequest', repeat: 2 }, 'its own node writes the run as it is before reading');
  t.match(await newest(other.url), { endpoint: 'getrequest', repeat: 2 }, 'and then the other node reads the same');
  clock.advance(1_000);
  await sim.pollOnce();
  await new Promise((r) => setTimeout(r, 2_500));
  t.match(await newest(other.url), { repeat: 2 }, 'a run that only grew is not written again within 30 s');
  clock.advance(31_000);
  await sim.pollOnce();
  t.match(await until(other.url, (e) => e?.repeat === 4), { endpoint: 'getrequest', repeat: 4 }, 'after 30 s it is');
});
