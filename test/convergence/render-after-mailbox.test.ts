/**
 * A command is rendered from the terminal and location as they stand once its mailbox was read, not as the poll
 * that takes it read them before. A write that queues a command (a door's settings, the terminal's area, the
 * location's scenario) lands between a held poll's device read and its mailbox read (the store's test hook holds
 * the mailbox read, src/store/test-faults.ts): the command it queued is sent with what the write stored. Read the
 * other way round, the door's settings failed ("door 1 has no settings"), the new area's user was sent as a delete,
 * and a lock-down's door settings kept the normal-open schedule (a MongoDB-leg failure of test/areas/scenarios).
 */
import t, { type Test } from 'tap';
import { heldCalls } from '../../src/store/test-faults.js';
import { storeFault } from '../helpers/faults.js';
import { setup, type Setup } from './helpers.js';

const fault = storeFault(t, 'commands.pending:hold');

type Cmd = { id: number; command: string; status: string; error_message: string | null };
const keepOpen = (id: number) => `SET OPTIONS Door1Drivertime=5,Door1KeepOpenTimeZone=${id}`;

/** Runs `write` while the terminal's poll holds a device read older than it, then lets the poll read its mailbox. */
async function betweenReads(t: Test, s: Setup, sn: string, write: () => Promise<void>): Promise<void> {
  fault(true);
  // Something queued wakes the held poll: it reads the terminal, then waits at its mailbox.
  t.equal((await s.api('POST', '/api/commands', { sn, command: 'check' })).status, 201);
  await s.until(() => heldCalls() > 0, 'the poll at its mailbox read');
  await write();
  fault(false);
}

const commands = async (s: Setup, sn: string, command: string) =>
  ((await s.api('GET', `/api/commands?sn=${sn}&command=${command}&limit=100`)).body as { data: Cmd[] }).data;

t.test('door settings written while a poll is under way are sent as stored', async (t) => {
  const s = await setup(t);
  const sim = await s.terminal('RAM-DOOR', 'v3', { lockCount: 2 });
  const hours = (await s.api('POST', '/api/schedules', { name: 'Hours', days: { mon: [{ start: '08:00', end: '18:00' }] } })).body as {
    id: number;
  };
  await s.until(async () => (await commands(s, 'RAM-DOOR', 'timezone-sync')).every((c) => c.status === 'success'), 'the schedules sent');

  await betweenReads(t, s, 'RAM-DOOR', async () => {
    t.equal((await s.api('PUT', '/api/devices/RAM-DOOR/doors/1', { unlock_seconds: 5, normal_open_schedule_id: hours.id })).status, 200);
  });
  await s.until(
    async () => (await commands(s, 'RAM-DOOR', 'door-settings')).every((c) => c.status !== 'pending' && c.status !== 'sent'),
    'the door settings ended',
  );
  t.match(await commands(s, 'RAM-DOOR', 'door-settings'), [{ status: 'success', error_message: null }], 'sent, not failed');
  t.ok(
    sim.executed().some((c) => c.command === keepOpen(hours.id)),
    'the terminal has the door’s settings',
  );
});

t.test('a terminal moved to an area while a poll is under way gets the area’s users, not deletes', async (t) => {
  const s = await setup(t);
  const area = async (name: string) => ((await s.api('POST', '/api/areas', { name })).body as { id: number }).id;
  const [a, b] = [await area('A'), await area('B')];
  t.equal((await s.api('POST', '/api/devices', { sn: 'RAM-AREA', name: 'RAM-AREA', area_id: a })).status, 201);
  const sim = await s.terminal('RAM-AREA', 'v3', {}, false);
  t.equal((await s.api('POST', '/api/users', { pin: 7, first_name: 'B', areas: [b] })).status, 201);

  await betweenReads(t, s, 'RAM-AREA', async () => {
    t.equal((await s.api('PATCH', '/api/devices/RAM-AREA', { area_id: b })).status, 200);
  });
  await s.until(async () => (await s.sync('RAM-AREA')).state === 'in_sync', 'the terminal in sync');
  t.ok(sim.users().has('7'), 'the terminal holds the area’s user');
});

t.test('a lock-down started while a poll is under way suspends the normal-open schedule', async (t) => {
  const s = await setup(t);
  const sim = await s.terminal('RAM-LOCK', 'v3', { lockCount: 2 });
  const hours = (await s.api('POST', '/api/schedules', { name: 'Hours', days: { mon: [{ start: '08:00', end: '18:00' }] } })).body as {
    id: number;
  };
  t.equal((await s.api('PUT', '/api/devices/RAM-LOCK/doors/1', { unlock_seconds: 5, normal_open_schedule_id: hours.id })).status, 200);
  await s.until(() => sim.executed().some((c) => c.command === keepOpen(hours.id)), 'the normal-open schedule on the door');

  await betweenReads(t, s, 'RAM-LOCK', async () => {
    t.equal((await s.api('POST', '/api/scenarios/lockdown')).status, 201);
  });
  await s.until(
    async () => (await commands(s, 'RAM-LOCK', 'door-settings')).every((c) => c.status === 'success'),
    'the door settings acknowledged',
  );
  const last = sim
    .executed()
    .filter((c) => c.command.startsWith('SET OPTIONS Door1'))
    .at(-1);
  t.equal(last?.command, keepOpen(0), 'the door was sent no schedule while locked down');
});
