// The audit job starts at most BIOGATE_AUDIT_MAX_OUTSTANDING scheduled (or first) audits outstanding at
// once (src/sync/audit.ts `runSchedule`): a fleet assigned together does not read every user table at
// once. An audit whose query failed holds no place. A scheduled audit waits while a revocation is on its
// way to the terminal, for at most 10 minutes. Emulated v3 terminals over HTTP, on the store of this run.
import t from 'tap';
import { createSimulatedDevice } from '../../src/simulator/index.js';
import { bearer, fakeClock, fetchJson, jsonBody, startApp } from '../helpers/app.js';
import { auditOf } from './helpers.js';

t.test('scheduled audits outstanding at once are capped; a failed query frees its place', async (t) => {
  const clock = fakeClock('2026-03-01T08:00:00.000Z');
  const app = await startApp(t, { clock, config: { longpollS: 1, ackTimeoutS: 30 } });
  const sns = ['CAP-A', 'CAP-B', 'CAP-C'];
  const sims = [];
  for (const sn of sns) {
    t.equal((await fetchJson(`${app.url}/api/devices`, jsonBody('POST', { sn }, bearer(app.token)))).res.status, 201);
    // An empty roster: nothing owed, so each is due its first audit as soon as it has polled.
    const sim = createSimulatedDevice({ url: app.url, sn, protocol: 'v3', pollDelayMs: 30, fast: true, loseRate: 1 });
    t.teardown(() => sim.stop());
    sim.start();
    sims.push(sim);
  }
  const { store, hub } = app.app;
  const polled = async () => (await Promise.all(sns.map((sn) => store.devices.getBySerial(sn)))).every((d) => d?.last_seen != null);
  for (let i = 0; !(await polled()); i++) {
    if (i > 2_000) throw new Error('terminals never polled');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  // The audit job as the app builds it (src/app.ts), on the app's store, with a cap of 2.
  const audit = auditOf(app.app, clock, { intervalS: 86_400, maxOutstanding: 2 });
  t.equal(await audit.job.run(), 2, 'two of the three started');
  t.equal(await audit.job.run(), 0, 'none while both are outstanding');
  const queries = async (status: string) =>
    (await store.commands.list(app.locationId, { command: 'load-users' }, { offset: 0, limit: 10 })).items.filter(
      (c) => c.status === status,
    );
  for (let i = 0; (await queries('sent')).length < 2; i++) {
    if (i > 2_000) throw new Error('audit queries never sent');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  // Their results lost: after the ack timeout the queries fail, and their places are free.
  clock.advance(31_000);
  await hub.sweepCommands();
  t.equal((await queries('failed')).length, 2, 'both queries failed: no result from the terminal');
  t.equal(await audit.job.run(), 1, 'the third starts');
  const started = new Set((await store.terminalSync.get(sns)).filter((r) => r.audit_started_at !== null).map((r) => r.sn));
  t.same([...started].sort(), sns, 'each terminal had its first audit started');
});

t.test('a scheduled audit waits while a revocation is on its way to the terminal, for at most 10 minutes', async (t) => {
  const clock = fakeClock('2026-03-01T08:00:00.000Z');
  const app = await startApp(t, { clock, config: { longpollS: 1, ackTimeoutS: 30 } });
  const api = (method: string, path: string, body?: unknown) =>
    fetchJson(`${app.url}${path}`, body === undefined ? { method, headers: bearer(app.token) } : jsonBody(method, body, bearer(app.token)));
  t.equal((await api('POST', '/api/users', { pin: 41, first_name: 'Leaving' })).res.status, 201);
  t.equal((await api('POST', '/api/devices', { sn: 'DEFER-A' })).res.status, 201);
  const sim = createSimulatedDevice({ url: app.url, sn: 'DEFER-A', protocol: 'v3', pollDelayMs: 30, fast: true });
  t.teardown(() => sim.stop());
  sim.start();
  const { store } = app.app;
  const owed = async () => (await store.terminalSync.owed(['DEFER-A'])).get('DEFER-A');
  const until = async (what: string, condition: () => Promise<boolean> | boolean) => {
    for (let i = 0; !(await condition()); i++) {
      if (i > 2_000) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  await until('the roster held and confirmed', async () => sim.users().has('41') && (await owed())?.owed === 0);
  await until('last_seen stored', async () => (await store.devices.getBySerial('DEFER-A'))?.last_seen != null);
  const audit = auditOf(app.app, clock, { intervalS: 10, maxOutstanding: 20 });
  t.equal(await audit.job.run(), 1, 'the first audit, the roster delivered');
  await until('the first audit compared', async () => (await store.terminalSync.get(['DEFER-A']))[0]?.last_audit_at != null);
  // The terminal stops polling; the user's delete is owed to it.
  await sim.pause();
  t.equal((await api('DELETE', '/api/users/41')).res.status, 200);
  await until('the revocation owed', async () => (await owed())?.revocations === 1);
  clock.advance(11_000);
  t.equal(await audit.job.run(), 0, 'due, but a revocation is on its way: the audit waits');
  clock.advance(10 * 60_000);
  t.equal(await audit.job.run(), 1, 'ten minutes later it waits no longer');
});

t.test('under the cap, the terminal audited longest ago goes first: a terminal late in the list is not starved', async (t) => {
  const clock = fakeClock('2026-03-01T08:00:00.000Z');
  const app = await startApp(t, { clock, config: { longpollS: 1, ackTimeoutS: 30 } });
  // Registered in this order, so the store lists them in it: the last would wait behind the others for ever.
  const sns = ['TURN-A', 'TURN-B', 'TURN-C'];
  for (const sn of sns) {
    t.equal((await fetchJson(`${app.url}/api/devices`, jsonBody('POST', { sn }, bearer(app.token)))).res.status, 201);
    const sim = createSimulatedDevice({ url: app.url, sn, protocol: sn === 'TURN-B' ? 'v2' : 'v3', pollDelayMs: 30, fast: true });
    t.teardown(() => sim.stop());
    sim.start();
  }
  const { store } = app.app;
  const records = async () => new Map((await store.terminalSync.get(sns)).map((r) => [r.sn, r]));
  const until = async (what: string, condition: () => Promise<boolean>) => {
    for (let i = 0; !(await condition()); i++) {
      if (i > 2_000) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  await until('every terminal polled', async () =>
    (await Promise.all(sns.map((sn) => store.devices.getBySerial(sn)))).every((d) => d?.last_seen != null),
  );
  const audit = auditOf(app.app, clock, { intervalS: 10, maxOutstanding: 1 });
  const order: string[] = [];
  for (let round = 0; round < 3; round++) {
    // Every terminal is due (an interval since the last audit or the assignment); one place is free.
    clock.advance(11_000);
    t.equal(await audit.job.run(), 1, `round ${round + 1}: one audit started`);
    const sn = [...(await records()).values()]
      .filter((r) => r.audit_started_at !== null && (r.last_audit_at === null || r.last_audit_at < r.audit_started_at))
      .map((r) => r.sn)[0];
    t.ok(sn, `round ${round + 1}: an audit is outstanding`);
    order.push(sn!);
    await until(`the audit of ${sn} compared`, async () => {
      const r = (await records()).get(sn!);
      return r?.last_audit_at != null && r.audit_started_at != null && r.last_audit_at >= r.audit_started_at;
    });
  }
  t.same([...order].sort(), sns, `each terminal audited once in three rounds (order ${order.join(', ')})`);
});

t.test('an audit whose query failed goes again a quarter interval after it started, not an interval later', async (t) => {
  const clock = fakeClock('2026-03-01T08:00:00.000Z');
  const app = await startApp(t, { clock, config: { longpollS: 1, ackTimeoutS: 30 } });
  t.equal((await fetchJson(`${app.url}/api/devices`, jsonBody('POST', { sn: 'LOST-A' }, bearer(app.token)))).res.status, 201);
  // Every result lost on its way back: the audit's query ends `failed` after the ack timeout.
  const sim = createSimulatedDevice({ url: app.url, sn: 'LOST-A', protocol: 'v3', pollDelayMs: 30, fast: true, loseRate: 1 });
  t.teardown(() => sim.stop());
  sim.start();
  const { store, hub } = app.app;
  const until = async (what: string, condition: () => Promise<boolean>) => {
    for (let i = 0; !(await condition()); i++) {
      if (i > 2_000) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  await until('the terminal polled', async () => (await store.devices.getBySerial('LOST-A'))?.last_seen != null);
  const audit = auditOf(app.app, clock, { intervalS: 400, maxOutstanding: 20 });
  const queries = async () => (await store.commands.list(app.locationId, { command: 'load-users' }, { offset: 0, limit: 10 })).items;
  t.equal(await audit.job.run(), 1, 'the first audit');
  await until('its query sent', async () => (await queries()).some((c) => c.status === 'sent'));
  clock.advance(31_000);
  await hub.sweepCommands();
  t.same(
    (await queries()).map((c) => c.status),
    ['failed'],
    'no result: the query failed',
  );
  t.equal(await audit.job.run(), 0, '31 s after it started: not yet (a quarter of the 400-s interval is 100 s)');
  clock.advance(70_000);
  t.equal(await audit.job.run(), 1, '101 s after it started: the audit goes again');
  t.equal((await queries()).length, 2);
});
