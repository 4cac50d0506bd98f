// Issue #33 item 1, end to end with emulated v2 and v3 terminals over HTTP: a terminal in an area holds
// only the users listing that area, a terminal without one every active user (as before areas); moving
// a user or a terminal between areas sends exactly the difference; the audit compares with the area's
// roster; areas in use cannot be deleted; ids of no area are refused. Runs on the store of
// BIOGATE_TEST_API_STORE (SQLite by default; the MongoDB leg runs it too).
import t from 'tap';
import type { AnyFeedEvent } from '../../src/events/types.js';
import { linesAbout, setup, type Setup } from '../convergence/helpers.js';

type Area = { id: number; name: string; devices_count: number; users_count: number };

const held = (sim: { users(): ReadonlyMap<string, unknown> }) => [...sim.users().keys()].map(Number).sort((a, b) => a - b);

async function area(s: Setup, name: string): Promise<Area> {
  const r = await s.api('POST', '/api/areas', { name });
  if (r.status !== 201) throw new Error(`POST /api/areas: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body as Area;
}

t.test('areas: who is on which terminal, and exactly the difference when people or terminals move', async (t) => {
  const s = await setup(t);
  const feed: AnyFeedEvent[] = [];
  s.app.app.feed.subscribe({ locationId: s.app.locationId }, (e) => feed.push(e));
  const a = await area(s, 'Warehouse');
  const b = await area(s, 'Office');
  const users: [number, number[]][] = [
    [1, [a.id]],
    [2, [b.id]],
    [3, [a.id, b.id]],
    [4, []],
  ];
  for (const [pin, areas] of users)
    t.equal((await s.api('POST', '/api/users', { pin, first_name: `U${pin}`, areas })).status, 201, `user ${pin} in ${areas.length} areas`);
  t.same(((await s.api('GET', '/api/users/3')).body as { areas: number[] }).areas, [a.id, b.id], 'UserResponse.areas, ascending');

  const assigned = async (sn: string, areaId: number | null) => {
    const r = await s.api('POST', '/api/devices', { sn, name: sn, area_id: areaId });
    t.equal(r.status, 201, `${sn} assigned`);
    t.same((r.body as { area: unknown }).area, areaId === null ? null : { id: areaId, name: areaId === a.id ? a.name : b.name });
  };
  await assigned('AREA-FREE', null);
  await assigned('AREA-A', a.id);
  await assigned('AREA-B', b.id);
  const free = await s.terminal('AREA-FREE', 'v2', {}, false);
  const inA = await s.terminal('AREA-A', 'v3', {}, false);
  const inB = await s.terminal('AREA-B', 'v2', {}, false);
  await s.until(() => held(free).length === 4 && held(inA).length === 2 && held(inB).length === 2, 'the three rosters');
  t.same(held(free), [1, 2, 3, 4], 'a terminal without an area: every active user, as before areas');
  t.same(held(inA), [1, 3], 'the Warehouse terminal: the Warehouse users only');
  t.same(held(inB), [2, 3], 'the Office terminal: the Office users only');
  t.same(linesAbout(inB, 1), [], 'nothing about a Warehouse-only user ever reached the Office terminal');
  t.same(linesAbout(inA, 4), [], 'nor about a user of no area');
  const counted = (await s.api('GET', '/api/areas')).body as { data: Area[]; total: number };
  t.match(counted, {
    total: 2,
    data: [
      { id: a.id, devices_count: 1, users_count: 2 },
      { id: b.id, devices_count: 1, users_count: 2 },
    ],
  });

  // A user moves from the Warehouse to the Office: deleted from the one, sent to the other.
  t.equal((await s.api('POST', '/api/users', { pin: 1, areas: [b.id] })).status, 200);
  await s.until(() => !held(inA).includes(1) && held(inB).includes(1), 'user 1 moved');
  t.equal(linesAbout(inA, 1).at(-1)?.command.startsWith('DATA DELETE'), true, 'the Warehouse terminal was sent the delete');
  t.same(held(free), [1, 2, 3, 4], 'the terminal without an area keeps everyone');

  // The Warehouse terminal moves to the Office: the Office users it lacked are sent; user 3 (in both) is left alone.
  const before3 = linesAbout(inA, 3).length;
  const moved = await s.api('PATCH', '/api/devices/AREA-A', { area_id: b.id });
  t.equal(moved.status, 200, 'PATCH /api/devices/{sn}');
  t.same((moved.body as { area: unknown }).area, { id: b.id, name: b.name });
  await s.until(() => held(inA).join() === '1,2,3', 'the Office roster on the moved terminal');
  await s.until(
    () =>
      feed.some(
        (e) => e.type === 'device.updated' && e.data.sn === 'AREA-A' && (e.data.device['area'] as { id?: number } | null)?.id === b.id,
      ),
    'device.updated names the new area',
  );
  t.equal(linesAbout(inA, 3).length, before3, 'a user of both areas gets no line');

  // Out of every area: it holds every active user again; and a rename through PATCH.
  t.equal((await s.api('PATCH', '/api/devices/AREA-A', { area_id: null, name: 'Dock' })).status, 200);
  await s.until(() => held(inA).join() === '1,2,3,4', 'every active user');
  t.equal(((await s.api('GET', '/api/devices/AREA-A')).body as { name: string }).name, 'Dock');

  // The audit compares a terminal with its area's roster: nothing to repair on a converged one.
  const lines = inB.executed().length;
  t.equal((await s.api('POST', '/api/devices/AREA-B/audit')).status, 202);
  await s.until(async () => (await s.sync('AREA-B')).last_audit_at !== null, 'the audit of the Office terminal');
  t.same(held(inB), [1, 2, 3], 'still the Office users');
  t.same(
    inB
      .executed()
      .slice(lines)
      .filter((c) => /^DATA (UPDATE|DELETE) USERINFO/.test(c.command)),
    [],
    'the audit repaired nothing: the area roster is what it compares with',
  );

  // Deleting: refused while a terminal is in the area; a terminal-less area goes and its users lose it.
  const inUse = await s.api('DELETE', `/api/areas/${b.id}`);
  t.match(inUse, { status: 409, body: { code: 'AREA_IN_USE' } });
  t.equal((await s.api('DELETE', `/api/areas/${a.id}`)).status, 200, 'the Warehouse has no terminal any more');
  t.equal((await s.api('GET', `/api/areas/${a.id}`)).status, 404);
  t.same(((await s.api('GET', '/api/users/3')).body as { areas: number[] }).areas, [b.id], 'user 3 lost the deleted area');
  t.equal((await s.api('PUT', `/api/areas/${b.id}`, { name: 'Front office' })).status, 200);

  const changes = feed.flatMap((e) => (e.type === 'area.changed' ? [[e.data.change, e.data.area.name]] : []));
  t.same(
    changes,
    [
      ['created', 'Warehouse'],
      ['created', 'Office'],
      ['deleted', 'Warehouse'],
      ['updated', 'Front office'],
    ],
    'area.changed on the feed, each once',
  );
});

t.test('areas: ids of no area of the location are refused, and nothing is written', async (t) => {
  const s = await setup(t);
  const mine = await area(s, 'Mine');
  const r = await s.api('POST', '/api/users', { pin: 7, first_name: 'Ann', areas: [mine.id, 999_999] });
  t.match(r, { status: 422, body: { code: 'VALIDATION_FAILED', detail: [{ loc: ['body', 'areas', 1], msg: /no area 999999/ }] } });
  t.equal((await s.api('GET', '/api/users/7')).status, 404, 'the user was not created');
  t.match(await s.api('POST', '/api/devices', { sn: 'AREA-X', area_id: 999_999 }), {
    status: 422,
    body: { detail: [{ loc: ['body', 'area_id'] }] },
  });
  t.equal((await s.api('GET', '/api/devices/AREA-X')).status, 404, 'the device was not assigned');
  t.equal((await s.api('POST', '/api/devices', { sn: 'AREA-Y' })).status, 201);
  t.match(await s.api('PATCH', '/api/devices/AREA-Y', { area_id: 999_999 }), { status: 422 });
  t.equal(((await s.api('GET', '/api/devices/AREA-Y')).body as { area: unknown }).area, null, 'the device kept no area');
  t.match(await s.api('PATCH', '/api/devices/NOPE', { area_id: mine.id }), { status: 404, body: { code: 'DEVICE_NOT_FOUND' } });
  t.match(await s.api('POST', '/api/areas', { name: '   ' }), { status: 422 });
  t.match(await s.api('POST', '/api/areas', { name: 'x'.repeat(101) }), { status: 422 });
  const imported = await s.api('POST', '/api/users/import', [
    { pin: 8, first_name: 'Bo', areas: [mine.id] },
    { pin: 9, first_name: 'Cy', areas: [424_242] },
  ]);
  t.match(imported, { status: 200, body: { processed_count: 1, error_count: 1 } });
  t.match((imported.body as { errors: { error: string }[] }).errors, [{ error: /no area 424242/ }]);
  t.same(((await s.api('GET', '/api/users/8')).body as { areas: number[] }).areas, [mine.id]);

  // Another location's area is no area of this one.
  const second = await s.app.app.locations.create({ name: 'Second' });
  const other = await s.app.app.store.areas.create(second.location.id, 'Elsewhere', '2026-03-01T08:00:00.000Z');
  t.match(await s.api('POST', '/api/users', { pin: 10, first_name: 'Di', areas: [other.id] }), { status: 422 });
  t.equal((await s.api('GET', `/api/areas/${other.id}`)).status, 404);
});
