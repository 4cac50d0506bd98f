// Issue #31 item 1 and 3: nothing owed is dropped while the terminal stays assigned. A refused line
// keeps the terminal in `drift` and is retried with back-off; lost results are retried without a limit;
// only upserts expire by age. Both dialects, over HTTP, on the store of this run (SQLite, or MongoDB in
// the MongoDB leg).
import t from 'tap';
import { DAY_MS } from '../helpers/app.js';
import { linesAbout, setup } from './helpers.js';

interface Command {
  id: number;
  command: string;
  status: string;
  error_message: string | null;
  params: { op?: string; pin?: number } | null;
}

const DIALECTS = [
  // [COMMANDS §5.2] v2 deletes in one line; v3 ends with the `user` line (a child line of the op).
  { protocol: 'v2' as const, deleteLine: (pin: number) => `DATA DELETE USERINFO PIN=${pin}`, code: -3 },
  { protocol: 'v3' as const, deleteLine: (pin: number) => `DATA DELETE user Pin=${pin}`, code: -12 },
];

for (const d of DIALECTS) {
  t.test(`${d.protocol}: a refused delete stays owed, puts the terminal in drift, and lands once accepted`, async (t) => {
    const s = await setup(t);
    const sn = `REFUSE-${d.protocol.toUpperCase()}`;
    t.equal((await s.api('POST', '/api/users', { pin: 7, first_name: 'Vera' })).status, 201);
    const sim = await s.terminal(sn, d.protocol);
    await s.until(async () => sim.users().has('7') && (await s.sync(sn)).state === 'in_sync', 'user 7 on the terminal, in_sync');

    sim.setFaults({ returnCodes: { [d.deleteLine(7)]: d.code } });
    t.equal((await s.api('DELETE', '/api/users/7')).status, 200);
    await s.until(() => linesAbout(sim, 7).some((c) => c.command === d.deleteLine(7) && c.returnCode === d.code), 'the refusal');
    await s.until(async () => (await s.sync(sn)).state === 'drift', 'drift');
    const state = await s.sync(sn);
    t.match(state, { state: 'drift', owed: 1, revocations_owed: 1, refused: 1, last_audit_at: null }, 'DeviceResponse.sync: drift');
    t.match(String(state.reason), new RegExp(`${d.code}`), 'the reason names the refusal code');
    const detail = await s.detail(sn);
    t.match(detail, { state: 'drift', owed: 1, revocations_owed: 1 }, 'the detail');
    t.match(detail.refused, { data: [{ pin: 7, code: d.code }], total: 1 }, 'the refused PIN with its code');
    t.match(detail.extra, { data: [{ pin: 7 }], total: 1 }, 'an owed revocation is listed as extra');
    t.match(detail.missing, { data: [], total: 0 });
    const drifting = (await s.api('GET', '/api/devices?sync_state=drift')).body as { data: { serial_number: string }[] };
    t.same(
      drifting.data.map((x) => x.serial_number),
      [sn],
      '?sync_state=drift lists it',
    );
    t.equal(((await s.api('GET', '/api/devices?sync_state=in_sync')).body as { total: number }).total, 0);
    t.match((await s.api('GET', '/api/sync')).body, { devices: 1, drift: 1, in_sync: 0, revocations_owed: 1 }, 'the summary');
    const ops = ((await s.api('GET', '/api/commands?command=sync-users&limit=100')).body as { data: Command[] }).data;
    const del = ops.find((c) => c.params?.op === 'user.delete' && c.params.pin === 7);
    t.ok(del, 'the delete op is listed');
    t.not(del?.status, 'failed', 'the refused delete is not failed');
    const byId = (await s.api('GET', `/api/commands/${del?.id}`)).body as Command;
    t.match(byId, { command: 'sync-users', id: del?.id }, 'its wire id resolves as a sync-users command');

    // Refused again: still owed after far more than the old three re-sends.
    for (let i = 0; i < 5; i++) {
      const before = linesAbout(sim, 7).filter((c) => c.command === d.deleteLine(7)).length;
      s.clock.advance(600_000);
      await s.app.app.hub.sweepCommands();
      await s
        .until(() => linesAbout(sim, 7).filter((c) => c.command === d.deleteLine(7)).length > before, `re-send ${i + 1}`)
        .catch(async (err: unknown) => {
          const op = (await s.api('GET', `/api/commands/${del?.id}`)).body;
          throw new Error(`${(err as Error).message}: ${JSON.stringify(op)} ${JSON.stringify(sim.stats)}`);
        });
    }
    await s.until(async () => (await s.sync(sn)).refused === 1, 'refusal recorded again');
    t.equal((await s.sync(sn)).state, 'drift', 'still drift after 5 refused re-sends');
    t.ok(sim.users().has('7') || d.protocol === 'v3', 'v2: a refused line had no effect');

    sim.setFaults({ returnCodes: {} });
    s.clock.advance(600_000);
    await s.app.app.hub.sweepCommands();
    await s
      .until(async () => !sim.users().has('7') && (await s.sync(sn)).state === 'in_sync', 'deleted and in_sync')
      .catch(async (err: unknown) => {
        const op = (await s.api('GET', `/api/commands/${del?.id}`)).body;
        throw new Error(`${(err as Error).message}: ${JSON.stringify(op)} ${JSON.stringify(linesAbout(sim, 7).slice(-6))}`);
      });
    t.match(await s.sync(sn), { owed: 0, revocations_owed: 0, refused: 0, reason: null });
    t.equal(((await s.api('GET', `/api/commands/${del?.id}`)).body as Command).status, 'success', 'the op ends success');
  });

  t.test(`${d.protocol}: a terminal that loses results past the old re-send limit converges, with back-off`, async (t) => {
    const s = await setup(t);
    const sn = `LOSE-${d.protocol.toUpperCase()}`;
    const sim = await s.terminal(sn, d.protocol);
    sim.setFaults({ loseRate: 1 });
    t.equal((await s.api('POST', '/api/users', { pin: 8, first_name: 'Lou' })).status, 201);
    const sent = () => linesAbout(sim, 8).filter((c) => /^DATA UPDATE (USERINFO|user) /.test(c.command)).length;
    await s.until(() => sent() === 1, 'first delivery');
    const ops = ((await s.api('GET', '/api/commands?command=sync-users&limit=10')).body as { data: Command[] }).data;
    const op = ops.find((c) => c.params?.pin === 8) as Command;
    await s.until(async () => ((await s.api('GET', `/api/commands/${op.id}`)).body as Command).status === 'sent', 'sent');
    t.equal((await s.sync(sn)).state, 'syncing', 'an unconfirmed line: syncing');
    const ackS = s.app.config.ackTimeoutS;
    s.clock.advance((ackS + 1) * 1000);
    await s.app.app.hub.sweepCommands();
    await s.until(() => sent() === 2, 'second delivery after the ack timeout');
    // Back-off: the next re-send waits twice as long.
    s.clock.advance((ackS + 1) * 1000);
    await s.app.app.hub.sweepCommands();
    t.equal(((await s.api('GET', `/api/commands/${op.id}`)).body as Command).status, 'sent', 'not re-sent before its back-off');
    for (let i = 3; i <= 7; i++) {
      s.clock.advance(301_000);
      await s.app.app.hub.sweepCommands();
      await s.until(() => sent() === i, `delivery ${i}`);
    }
    t.not(((await s.api('GET', `/api/commands/${op.id}`)).body as Command).status, 'failed', 'never failed');
    sim.setFaults({ loseRate: 0 });
    s.clock.advance(301_000);
    await s.app.app.hub.sweepCommands();
    await s.until(async () => (await s.sync(sn)).state === 'in_sync', 'in_sync');
    t.equal(((await s.api('GET', `/api/commands/${op.id}`)).body as Command).status, 'success');
    t.ok(sim.users().has('8'));
    // Confirmations are written with the next state refresh (at most 250 ms later), once per refresh.
    await s.until(async () => (await s.sync(sn)).last_confirmed_at !== null, 'last_confirmed_at');
    t.ok((await s.sync(sn)).last_confirmed_at, 'last_confirmed_at set');
  });

  t.test(`${d.protocol}: an upsert expires by age, a revocation of the same age does not`, async (t) => {
    const s = await setup(t);
    const sn = `AGE-${d.protocol.toUpperCase()}`;
    t.equal((await s.api('POST', '/api/devices', { sn, name: sn })).status, 201);
    t.equal((await s.api('POST', '/api/users', { pin: 21, first_name: 'Upsert' })).status, 201);
    t.equal((await s.api('POST', '/api/users', { pin: 22, first_name: 'Revoked' })).status, 201);
    t.equal((await s.api('DELETE', '/api/users/22')).status, 200);
    t.match(await s.sync(sn), { owed: 2, revocations_owed: 1 }, 'one upsert and one revocation owed');
    s.clock.advance(31 * DAY_MS);
    await s.app.app.hub.sweepCommands();
    const ops = ((await s.api('GET', '/api/commands?command=sync-users&limit=10')).body as { data: Command[] }).data;
    t.match(
      ops.find((c) => c.params?.pin === 21),
      { status: 'failed', error_message: /expired/ },
      'the upsert expired',
    );
    t.match(
      ops.find((c) => c.params?.pin === 22),
      { status: 'pending' },
      'the revocation is still owed',
    );
    t.match(await s.sync(sn), { owed: 1, revocations_owed: 1 });
    const sim = await s.terminal(sn, d.protocol, {}, false);
    await s.until(async () => (await s.sync(sn)).state === 'in_sync', 'the revocation lands');
    t.notOk(sim.users().has('22'), 'the revoked user is not on the terminal');
  });
}

for (const d of DIALECTS) {
  t.test(`${d.protocol}: a refused line goes again about a second later, not after the ack timeout`, async (t) => {
    // The fake clock creeps (10 ms a tick, half of real time): the sweep's back-off (the 30-s ack timeout
    // and up) never passes, so only the refusal's own short back-off (devices/sweeps.ts refusalBackoffMs,
    // a real timer) can send it again; each attempt still gets its own sent_at.
    const s = await setup(t);
    const creep = setInterval(() => s.clock.advance(10), 20);
    t.teardown(() => clearInterval(creep));
    const sn = `REFUSE-FAST-${d.protocol.toUpperCase()}`;
    t.equal((await s.api('POST', '/api/users', { pin: 8, first_name: 'Walt' })).status, 201);
    const sim = await s.terminal(sn, d.protocol);
    await s.until(async () => sim.users().has('8') && (await s.sync(sn)).state === 'in_sync', 'user 8 on the terminal, in_sync');
    sim.setFaults({ returnCodes: { [d.deleteLine(8)]: d.code } });
    t.equal((await s.api('DELETE', '/api/users/8')).status, 200);
    await s.until(() => linesAbout(sim, 8).some((c) => c.command === d.deleteLine(8) && c.returnCode === d.code), 'the refusal');
    await s.until(
      () => linesAbout(sim, 8).filter((c) => c.command === d.deleteLine(8)).length >= 3,
      'two more sends of the refused line, the sweep never due',
      10_000,
    );
    sim.setFaults({ returnCodes: {} });
    await s
      .until(async () => !sim.users().has('8') && (await s.sync(sn)).state === 'in_sync', 'accepted: deleted and in_sync', 15_000)
      .catch(async (err: unknown) => {
        const ops = ((await s.api('GET', '/api/commands?command=sync-users&limit=100')).body as { data: Command[] }).data;
        throw new Error(
          `${(err as Error).message}: ${JSON.stringify(ops.filter((c) => c.params?.pin === 8))} ${JSON.stringify(linesAbout(sim, 8))} ${JSON.stringify(await s.sync(sn))}`,
        );
      });
    t.pass('the refused revocation landed without waiting for the sweep');
  });
}
