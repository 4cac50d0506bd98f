// Issue #31 item 7: the simulator's convergence faults, seen from BioGate: refused user lines put the
// terminal in drift, keypad users and a factory reset change what the terminal holds.
import t from 'tap';
import { linesAbout, setup } from './helpers.js';

t.test('refuse-rate 1: every user line refused, the terminal is in drift with the code', async (t) => {
  const s = await setup(t);
  const sim = await s.terminal('FAULT-REFUSE', 'v2', { refuseRate: 1 });
  t.equal((await s.api('POST', '/api/users', { pin: 31, first_name: 'Ref' })).status, 201);
  await s.until(async () => (await s.sync('FAULT-REFUSE')).state === 'drift', 'drift');
  t.same(
    linesAbout(sim, 31).map((c) => c.returnCode),
    [-3],
    'v2 refusal code -3',
  );
  t.notOk(sim.users().has('31'), 'a refused line has no effect');
  t.match(await s.sync('FAULT-REFUSE'), { refused: 1, owed: 1, reason: /-3/ });
});

t.test('keypad users and a wipe change what the terminal holds', async (t) => {
  const s = await setup(t);
  t.equal((await s.api('POST', '/api/users', { pin: 41, first_name: 'Kept' })).status, 201);
  const sim = await s.terminal('FAULT-WIPE', 'v3', { keypadUsers: 2, wipeAfterS: 1 });
  t.ok(sim.users().has('90001') && sim.users().has('90002'), 'keypad users 90001 and 90002');
  await s.until(() => sim.stats.wipes === 1, 'the wipe');
  t.equal(sim.users().size, 0, 'a wipe erases every user');
  sim.setFaults({ loseRate: 1 });
  t.equal((await s.api('POST', '/api/users', { pin: 42, first_name: 'Lost' })).status, 201);
  await s.until(() => sim.users().has('42') && sim.stats.resultsLost > 0, 'applied, result lost');
  t.equal((await s.sync('FAULT-WIPE')).state, 'syncing', 'unconfirmed: still owed');
});
