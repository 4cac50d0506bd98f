// Issue #13 "Verified by": a seeded, randomised soak. Simulated v2 and v3 terminals keep polling while
// users are created, changed, deactivated, reactivated and deleted at random, API commands are
// queued, terminals drop requests in flight (stop mid-exchange) and the gateway itself restarts on
// the same store. At the end every terminal holds exactly the location's active users, every command
// is final and agrees with what the terminal did, and no non-idempotent command ran twice.
//
// Small in CI; BIOGATE_SOAK_OPS (operations, default 60) and BIOGATE_SOAK_SEED resize and replay it.
import t from 'tap';
import { createSimulatedDevice, type SimulatedDevice } from '../../src/simulator/index.js';
import { seeded } from '../protocols/prng.js';
import { bearer, fakeClock, fetchJson, freePort, jsonBody, startApp, waitFor, type StartedApp } from '../helpers/app.js';

const OPS = Number(process.env['BIOGATE_SOAK_OPS'] ?? 60);
const SEED = Number(process.env['BIOGATE_SOAK_SEED'] ?? 1321);
const TERMINALS = [
  { sn: 'SOAKV201', protocol: 'v2' as const },
  { sn: 'SOAKV202', protocol: 'v2' as const },
  { sn: 'SOAKV203', protocol: 'v2' as const },
  { sn: 'SOAKV301', protocol: 'v3' as const },
  { sn: 'SOAKV302', protocol: 'v3' as const },
];

interface CommandView {
  id: number;
  sn: string;
  command: string;
  status: string;
  error_message: string | null;
  params: Record<string, unknown> | null;
}
interface UserView {
  pin: number;
  first_name: string | null;
  last_name: string | null;
}

t.test(`soak: ${OPS} random operations, dropped requests and a restart; seed ${SEED}`, async (t) => {
  const rng = seeded(SEED);
  const clock = fakeClock('2026-03-01T08:00:00.000Z');
  const port = await freePort();
  const config = { port, longpollS: 0 };
  let app: StartedApp = await startApp(t, { clock, config });
  const token = app.token;
  const url = app.url;
  const api = async (method: string, path: string, body?: unknown) =>
    fetchJson(`${url}${path}`, body === undefined ? { method, headers: bearer(token) } : jsonBody(method, body, bearer(token)));

  const sims = new Map<string, SimulatedDevice>();
  for (const { sn, protocol } of TERMINALS) {
    await api('POST', '/api/devices', { sn, ...(protocol === 'v3' ? { version: '3.0.0' } : {}) });
    const sim = createSimulatedDevice({
      url,
      sn,
      protocol,
      pollDelayMs: 20,
      retryDelayMs: 50,
      fast: true,
      requestTimeoutMs: 10_000,
      seed: SEED,
    });
    t.teardown(() => sim.stop());
    sims.set(sn, sim);
    sim.start();
  }

  const apiCommands: number[] = [];
  const restartAt = Math.floor(OPS / 2);
  for (let op = 0; op < OPS; op++) {
    const pin = rng.int(1, 25);
    const roll = rng.next();
    if (roll < 0.4) await api('POST', '/api/users', { pin, first_name: `F${rng.int(1, 99)}`, last_name: `L${pin}` });
    else if (roll < 0.55) await api('POST', '/api/users', { pin, first_name: `G${pin}`, is_active: rng.bool() });
    else if (roll < 0.65) await api('DELETE', `/api/users/${pin}`);
    else if (roll < 0.7) await api('DELETE', '/api/users/clear', { pins: [pin, rng.int(1, 25)] });
    else if (roll < 0.8) {
      const { res, body } = await api('POST', '/api/commands', {
        sn: rng.pick(TERMINALS).sn,
        command: rng.pick(['info', 'door-unlock']),
        expires_in: 86_400,
      });
      if (res.status === 201) apiCommands.push((body as CommandView).id);
    } else if (roll < 0.9) {
      // A dropped exchange: the terminal is cut off mid-request and comes back.
      const sim = sims.get(rng.pick(TERMINALS).sn) as SimulatedDevice;
      await sim.stop();
      sim.start();
    }
    if (op === restartAt) {
      await app.close();
      app = await startApp(t, { clock, config, storeUrl: app.storeUrl });
    }
    await new Promise((r) => setTimeout(r, rng.int(0, 15)));
  }

  // Converge: sent ops whose result was lost go again after the ack timeout (fake clock).
  const open = async () => {
    const pending = (await api('GET', '/api/commands?status=pending&limit=100')).body as { total: number };
    const sent = (await api('GET', '/api/commands?status=sent&limit=100')).body as { total: number };
    return pending.total + sent.total;
  };
  // Time only jumps once the terminals are quiet (nothing settled for 500 ms of real time): an op
  // still in a terminal's hands on a loaded machine is late, not lost, and must not use up its retries.
  const quiet = async () => {
    for (let last = await open(), calm = 0; calm < 5;) {
      await new Promise((r) => setTimeout(r, 100));
      const now = await open();
      calm = now === last ? calm + 1 : 0;
      last = now;
    }
  };
  for (let round = 0; round < 40 && (await open()) > 0; round++) {
    await quiet();
    clock.advance((app.config.ackTimeoutS + 1) * 1000);
    await app.app.hub.sweepCommands();
  }
  t.equal(await open(), 0, 'every command is final');

  const active: UserView[] = [];
  for (let page = 1; ; page++) {
    const body = (await api('GET', `/api/users?is_active=true&limit=100&page=${page}`)).body as { data: UserView[]; has_next: boolean };
    active.push(...body.data);
    if (!body.has_next) break;
  }
  const expected = active.map((u) => [String(u.pin), [u.first_name, u.last_name].filter(Boolean).join(' ')]).sort();
  for (const [sn, sim] of sims) {
    await waitFor(() => sim.stats.online, 10_000, `${sn} online`);
    const held = [...sim.users().values()].map((u) => [u.pin, u.name]).sort();
    if (!t.same(held, expected, `${sn}: holds exactly the location's active users`)) {
      const all = (await api('GET', `/api/commands?sn=${sn}&limit=100`)).body as { data: CommandView[] };
      t.comment(`${sn} commands: ${JSON.stringify(all.data.map((c) => [c.id, c.command, c.status, c.error_message, c.params]))}`);
    }
  }

  // Every final status agrees with what the terminal reported: success only for what it executed
  // and answered with Return >= 0; a failure after execution names a code the terminal returned
  // (a v3 answer cut off by a dropped exchange or the restart is −726, "server HTTP error", on the
  // terminal's own word), unless the result itself was lost; a non-idempotent command (door-unlock)
  // ran at most once.
  const returned = new Map<number, (number | null)[]>();
  for (const sim of sims.values()) {
    for (const e of sim.executed()) if (e.id !== null) returned.set(Number(e.id), [...(returned.get(Number(e.id)) ?? []), e.returnCode]);
  }
  for (const id of apiCommands) {
    const c = (await api('GET', `/api/commands/${id}`)).body as CommandView;
    const codes = returned.get(id) ?? [];
    if (c.status === 'success' && !codes.some((code) => code !== null && code >= 0))
      t.fail(`command ${id} (${c.command}) success, never executed successfully: ${JSON.stringify(codes)}`);
    if (c.command === 'door-unlock' && codes.length > 1) t.fail(`door-unlock ${id} executed ${codes.length} times`);
    if (
      c.status === 'failed' &&
      codes.length > 0 &&
      c.error_message !== 'no result from device' &&
      !codes.some((code) => code !== null && code < 0 && c.error_message?.startsWith(`device returned ${code}:`) === true)
    ) {
      t.fail(
        `command ${id} executed, yet failed with a code the terminal did not return: ${c.error_message} (returned ${JSON.stringify(codes)})`,
      );
    }
  }
  t.pass(`${apiCommands.length} API commands checked against what the terminals executed`);
});
