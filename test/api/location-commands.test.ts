/**
 * Issue #36 item 3, location-wide commands: POST /api/commands with `target` queues the preset for every matching
 * terminal that supports it and answers with a parent whose `sn` is null, carrying `targets` and `children`; the
 * parent follows its children (success only when every child succeeded; a cancelled child makes it failed) and the
 * children are ordinary commands. Simulated v2 and v3 terminals polling a real gateway; bad targets are refused.
 */
import t from 'tap';
import { createSimulatedDevice } from '../../src/simulator/index.js';
import { waitForAsync } from '../helpers/app.js';
import { gateway, type Json } from './client.js';

interface Parent {
  id: number;
  sn: string | null;
  status: string;
  command: string;
  targets: { queued: number; success: number; failed: number; unsupported: number } | null;
  children: number[] | null;
  response: string | null;
}

t.test('a command for every terminal, and for an area: targets, children, the parent follows them', async (t) => {
  const g = await gateway(t, { config: { longpollS: 0 } });
  const { api } = g.a;
  const lobby = (await api<{ id: number }>('POST', '/api/areas', { body: { name: 'Lobby' } })).body.id;
  const online = async (sn: string, protocol: 'v2' | 'v3', area: number | null) => {
    t.equal((await api('POST', '/api/devices', { body: { sn, area_id: area } })).status, 201);
    const sim = createSimulatedDevice({ url: g.url, sn, protocol, pollDelayMs: 50, requestTimeoutMs: 10_000 });
    t.teardown(() => sim.stop());
    await sim.handshake();
    sim.start();
    return sim;
  };
  await online('WIDEV3A', 'v3', lobby);
  await online('WIDEV2A', 'v2', lobby);
  // Assigned, never seen: its protocol is unknown, so it gets the command, which waits in its mailbox.
  t.equal((await api('POST', '/api/devices', { body: { sn: 'WIDEOFF' } })).status, 201);

  const lock = await api<Parent>('POST', '/api/commands', { body: { target: { all: true }, command: 'door-lock' } });
  t.equal(lock.status, 201);
  t.match(lock.body, { sn: null, command: 'door-lock', targets: { queued: 2, unsupported: 1, failed: 0 } });
  t.equal(lock.body.children?.length, 2, 'a child per terminal that supports it (the v2 terminal cannot lock a door)');
  const children = await Promise.all((lock.body.children ?? []).map(async (id) => (await api<Json>('GET', `/api/commands/${id}`)).body));
  t.same(children.map((c) => c['sn']).sort(), ['WIDEOFF', 'WIDEV3A'], 'the children are ordinary commands of their terminals');

  const parent = async (id: number) => (await api<Parent>('GET', `/api/commands/${id}`)).body;
  await waitForAsync(async () => (await parent(lock.body.id)).targets?.success === 1, 15_000, 'the v3 terminal locked its door');
  t.match(await parent(lock.body.id), { status: 'sent', targets: { success: 1, failed: 0 } }, 'still sent: one child is outstanding');
  const offline = children.find((c) => c['sn'] === 'WIDEOFF');
  t.equal((await api('DELETE', `/api/commands/${String(offline?.['id'])}`)).status, 200, 'the offline terminal’s child is cancelled');
  await waitForAsync(async () => (await parent(lock.body.id)).status === 'failed', 10_000, 'the parent ends');
  t.match(await parent(lock.body.id), {
    status: 'failed',
    targets: { queued: 2, success: 1, failed: 1, unsupported: 1 },
    response: '1 of 2 terminals succeeded, 1 failed, 1 do not support it',
  });

  const info = await api<Parent>('POST', '/api/commands', { body: { target: { area_id: lobby }, command: 'check' } });
  t.match(info, { status: 201, body: { sn: null, targets: { queued: 2, unsupported: 0 } } }, 'an area: its two terminals');
  await waitForAsync(async () => (await parent(info.body.id)).status === 'success', 15_000, 'both answered');
  t.match(await parent(info.body.id), { targets: { queued: 2, success: 2, failed: 0 } });
  const listed = (await api<{ data: Parent[] }>('GET', '/api/commands?command=check')).body.data;
  t.equal(listed.filter((c) => c.sn === null).length, 1, 'the parent is listed with the location’s commands');

  const key = { 'idempotency-key': 'wide-1' };
  const first = await api<Parent>('POST', '/api/commands', { body: { target: { all: true }, command: 'check' }, headers: key });
  const again = await api<Parent>('POST', '/api/commands', { body: { target: { all: true }, command: 'check' }, headers: key });
  t.equal(again.body.id, first.body.id, 'the same Idempotency-Key: the same parent, nothing queued twice');
});

t.test('refused: both or neither of sn and target, an unknown or empty area, sync-users, a bad target', async (t) => {
  const g = await gateway(t);
  const { api } = g.a;
  t.equal((await api('POST', '/api/devices', { body: { sn: 'WIDEREF1' } })).status, 201);
  const empty = (await api<{ id: number }>('POST', '/api/areas', { body: { name: 'Empty' } })).body.id;
  const refused = async (body: Json, what: string, text: RegExp) => {
    const r = await api<Json>('POST', '/api/commands', { body });
    t.equal(r.status, 422, what);
    t.match(JSON.stringify(r.body), text, what);
  };
  await refused({ command: 'check' }, 'neither', /exactly one of sn and target/);
  await refused({ command: 'check', sn: 'WIDEREF1', target: { all: true } }, 'both', /exactly one of sn and target/);
  await refused({ command: 'check', target: { area_id: 999_999 } }, 'an unknown area', /no area 999999/);
  await refused({ command: 'check', target: { area_id: empty } }, 'an area without terminals', /no terminal of this location matches/);
  await refused({ command: 'sync-users', target: { all: true } }, 'sync-users', /one terminal at a time/);
  await refused({ command: 'check', target: { all: false } }, 'all: false', /target/);
  await refused({ command: 'check', target: { all: true, area_id: 1 } }, 'both kinds of target', /target/);
  const other = await g.tenant('Other');
  t.match(
    await other.api('POST', '/api/commands', { body: { command: 'check', target: { all: true } } }),
    { status: 422 },
    'another location with no terminal: none of this one’s',
  );
  const commands = (await api<{ total: number }>('GET', '/api/commands')).body;
  t.equal(commands.total, 0, 'nothing was queued');
});
