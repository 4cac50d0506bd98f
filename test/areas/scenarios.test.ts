/**
 * Issue #36 item 3, emergency scenarios: a lockdown with v2 and v3 terminals locks every v3 door ahead of what was
 * queued, suspends a door's normal-open schedule (the terminal is sent no schedule, and the access audit agrees),
 * is shown in GET /api/me, and its release ends the lock-down and restores the schedule. Evacuate opens the doors
 * (emergency dual-open) and is released with door-close. One scenario at a time; a full token only.
 * Simulated terminals polling a real gateway.
 */
import t from 'tap';
import { setup } from '../convergence/helpers.js';

interface Cmd {
  id: number;
  sn: string | null;
  status: string;
  command: string;
  priority: number;
  targets?: { queued: number; success: number; failed: number; unsupported: number };
  children?: number[];
}
type Me = { scenario: { name: string; since: string; command_id: number | null } | null };

t.test('lockdown: v3 doors locked first, the normal-open schedule suspended and restored on release', async (t) => {
  const s = await setup(t);
  const lobby = await s.terminal('SCN-V3', 'v3', { lockCount: 2 });
  const v2 = await s.terminal('SCN-V2', 'v2');
  const hours = (await s.api('POST', '/api/schedules', { name: 'Hours', days: { mon: [{ start: '08:00', end: '18:00' }] } })).body as {
    id: number;
  };
  t.equal((await s.api('PUT', '/api/devices/SCN-V3/doors/1', { unlock_seconds: 5, normal_open_schedule_id: hours.id })).status, 200);
  const keepOpen = (id: number) => `SET OPTIONS Door1Drivertime=5,Door1KeepOpenTimeZone=${id}`;
  await s.until(() => lobby.executed().some((c) => c.command === keepOpen(hours.id)), 'the normal-open schedule on the door');

  // Something already queued at the API's top priority, while the terminal is away.
  await lobby.stop();
  const queued = (await s.api('POST', '/api/commands', { sn: 'SCN-V3', command: 'check', priority: 100 })).body as Cmd;
  const lock = await s.api('POST', '/api/scenarios/lockdown');
  t.equal(lock.status, 201);
  const parent = lock.body as Cmd;
  t.match(parent, { sn: null, command: 'door-lock', priority: 1000, targets: { queued: 1, unsupported: 1 } }, 'v2 has no lock-down');
  t.match((await s.api('GET', '/api/me')).body as Me, { scenario: { name: 'lockdown', command_id: parent.id } });
  t.match(await s.api('POST', '/api/scenarios/evacuate'), { status: 409, body: { code: 'SCENARIO_ACTIVE' } }, 'one at a time');

  const before = lobby.executed().length;
  lobby.start();
  await s.until(async () => ((await s.api('GET', `/api/commands/${parent.id}`)).body as Cmd).status === 'success', 'the lock-down done');
  const after = lobby.executed().slice(before);
  const at = (text: string) => after.findIndex((c) => c.command.startsWith(text));
  t.ok(at('CONTROL DEVICE 06010100') >= 0, 'the door was locked down');
  t.ok(at('CONTROL DEVICE 06010100') < at('GET OPTIONS ~SerialNumber'), 'ahead of the check queued before it');
  t.ok(lobby.doors()[0]?.lockedDown, 'the terminal’s door 1 is locked down');
  await s.until(
    () =>
      lobby
        .executed()
        .slice(before)
        .some((c) => c.command === keepOpen(0)),
    'the schedule suspended on the terminal',
  );
  // The check (priority 100) runs after the lock-down and the door settings that suspend the schedule (both above it),
  // so its result may still be on its way when the suspension is seen on the terminal.
  await s.until(
    async () => ((await s.api('GET', `/api/commands/${queued.id}`)).body as Cmd).status === 'success',
    'the earlier command still ran',
  );
  t.pass('the earlier command still ran');
  // The access audit reads the doors back and agrees: no schedule while locked down, so nothing is "repaired".
  const list = async (command: string) =>
    ((await s.api('GET', `/api/commands?sn=SCN-V3&command=${command}&limit=100`)).body as { data: Cmd[] }).data;
  await s.until(async () => (await list('door-settings')).every((c) => c.status === 'success'), 'door settings acknowledged');
  const doorOps = (await list('door-settings')).length;
  t.equal((await s.api('POST', '/api/devices/SCN-V3/audit')).status, 202);
  await s.until(async () => (await list('access-audit')).some((c) => c.status === 'success'), 'an access audit during the lockdown');
  t.equal((await list('door-settings')).length, doorOps, 'the audit queued no door settings: the suspended schedule is what it expects');
  t.equal(v2.doors()[0]?.lockedDown ?? false, false, 'nothing was sent to the v2 terminal for it');
  t.match(
    (await s.api('GET', '/api/devices/SCN-V3/doors')).body,
    { data: [{ door: 1, normal_open_schedule_id: hours.id }] },
    'the door keeps its schedule: suspended, not forgotten',
  );

  const released = await s.api('DELETE', '/api/scenarios/lockdown');
  t.equal(released.status, 200);
  const release = (released.body as { released: string; command: Cmd }).command;
  t.match(release, { command: 'door-unlock', sn: null, targets: { queued: 1 } }, 'sent to the terminal the lock-down reached');
  t.equal(((await s.api('GET', '/api/me')).body as Me).scenario, null);
  await s.until(async () => ((await s.api('GET', `/api/commands/${release.id}`)).body as Cmd).status === 'success', 'the release done');
  t.notOk(lobby.doors()[0]?.lockedDown, 'the lock-down ended');
  const last = lobby
    .executed()
    .filter((c) => c.command.startsWith('SET OPTIONS Door1'))
    .at(-1);
  await s.until(
    () =>
      lobby
        .executed()
        .filter((c) => c.command.startsWith('SET OPTIONS Door1'))
        .at(-1)?.command === keepOpen(hours.id),
    `the schedule restored (last: ${last?.command})`,
  );
  t.match(await s.api('DELETE', '/api/scenarios/lockdown'), { status: 404, body: { code: 'SCENARIO_NOT_ACTIVE' } });

  // Audited (issue #36 item 1): the start and the release, with the scenario before and after; the refused second
  // release wrote nothing.
  const audit = (
    (await s.api('GET', '/api/audit?target_type=location')).body as { data: { action: string; changes: Record<string, unknown> }[] }
  ).data.filter((e) => e.action.startsWith('location.scenario_'));
  t.match(audit, [
    { action: 'location.scenario_released', changes: { scenario: [{ name: 'lockdown', command_id: parent.id }, null] } },
    { action: 'location.scenario_started', changes: { scenario: [null, { name: 'lockdown' }] } },
  ]);
  t.equal(audit.length, 2);
  const queuedEntries = ((await s.api('GET', '/api/audit?action=command.queued&limit=100')).body as { data: { target: { id: string } }[] })
    .data;
  t.ok(
    queuedEntries.some((e) => e.target.id === String(queued.id)),
    'the check queued through the API is in it',
  );
});

t.test('evacuate: emergency dual-open, released with door-close; scope and names checked', async (t) => {
  const s = await setup(t);
  const hall = await s.terminal('EVA-V3', 'v3');
  const started = await s.api('POST', '/api/scenarios/evacuate');
  t.match(started, { status: 201, body: { command: 'emergency-on', targets: { queued: 1 } } });
  await s.until(async () => ((await s.api('GET', `/api/commands/${(started.body as Cmd).id}`)).body as Cmd).status === 'success', 'opened');
  t.ok(
    hall.executed().some((c) => c.command === 'CONTROL DEVICE 07010000'),
    'emergency dual-open sent',
  );
  t.match(await s.api('DELETE', '/api/scenarios/lockdown'), { status: 404 }, 'not the scenario in force');
  const released = await s.api('DELETE', '/api/scenarios/evacuate');
  t.match(released, { status: 200, body: { released: 'evacuate', command: { command: 'door-close' } } });
  t.match(await s.api('POST', '/api/scenarios/fire'), { status: 422 }, 'an unknown scenario');

  const reader = await s.app.app.locations.issueToken({ location_id: s.app.locationId, scope: 'operator', label: 'desk' });
  const res = await fetch(`${s.app.url}/api/scenarios/lockdown`, { method: 'POST', headers: { authorization: `Bearer ${reader.token}` } });
  t.equal(res.status, 403, 'an operator token may not start one');
  await res.text();
  t.equal(((await s.api('GET', '/api/me')).body as Me).scenario, null, 'nothing in force');
});
