// Bulk fan-out (DESIGN.md "Sync"): a user import reaches 20 simulated terminals (10 v2, 10 v3) of one
// location, and every terminal ends with exactly the active roster; users imported inactive never
// reach a device. 2,000 users by default (the same paths as 10,000: chunks, batches, group commits,
// held polls); BIOGATE_TEST_FANOUT_USERS=10000 runs the full size (about 4 minutes under the suite's
// load on 2 cores, which made it the longest file of `npm test`). Timing is measured by `npm run
// bench -- --scenario fanout` (10,000 users), not asserted here.
import t from 'tap';
import { createSimulatedDevice, type SimulatedDevice } from '../../src/simulator/index.js';
import { bearer, fetchJson, jsonBody, startApp, waitFor } from '../helpers/app.js';

// Generous on purpose: the full size under load takes minutes; the figure that matters is the bench's.
t.setTimeout(30 * 60_000);
const CONVERGENCE_MS = 28 * 60_000;

const USERS = Number(process.env['BIOGATE_TEST_FANOUT_USERS'] ?? 2_000);
if (!Number.isInteger(USERS) || USERS < 100 || USERS > 10_000)
  throw new Error('BIOGATE_TEST_FANOUT_USERS: a whole number from 100 to 10,000');
const DEVICES = 20;
/** every 10th imported user is inactive */
const isActive = (i: number) => i % 10 !== 0;

interface Page {
  total: number;
}
interface ImportResult {
  processed_count: number;
  error_count: number;
}

t.test(`${USERS.toLocaleString('en-US')}-user import fanned out to 20 devices: each holds exactly the active roster`, async (t) => {
  const app = await startApp(t);
  const api = async (method: string, path: string, body?: unknown, timeoutMs = 5_000) =>
    fetchJson(`${app.url}${path}`, {
      ...(body === undefined ? { method, headers: bearer(app.token) } : jsonBody(method, body, bearer(app.token))),
      signal: AbortSignal.timeout(timeoutMs),
    });

  const sims: SimulatedDevice[] = [];
  for (let i = 0; i < DEVICES; i++) {
    const protocol = i % 2 === 0 ? 'v2' : 'v3';
    const sn = `FAN${protocol.toUpperCase()}${String(i).padStart(3, '0')}`;
    t.equal((await api('POST', '/api/devices', { sn })).res.status, 201);
    const sim = createSimulatedDevice({
      url: app.url,
      sn,
      protocol,
      pollDelayMs: 50,
      fast: true,
      requestTimeoutMs: 60_000,
      retryDelayMs: 200,
    });
    t.teardown(() => sim.stop());
    sims.push(sim);
    sim.start();
  }
  await waitFor(() => sims.every((s) => s.stats.polls > 0), 30_000, 'every device to handshake and poll');

  const items = Array.from({ length: USERS }, (_, i) => ({
    pin: 100_000 + i,
    first_name: `First${i}`,
    last_name: `Last${i}`,
    card_no: String(5_000_000 + i),
    ...(isActive(i) ? {} : { is_active: false }),
  }));
  const active = new Set(items.filter((_, i) => isActive(i)).map((u) => String(u.pin)));
  const imported = await api('POST', '/api/users/import', items, 120_000);
  t.equal(imported.res.status, 200);
  t.match(imported.body as ImportResult, { processed_count: USERS, error_count: 0 });

  await waitFor(() => sims.every((s) => s.users().size >= active.size), CONVERGENCE_MS, 'every device to hold the active roster');
  // Nothing left to deliver or to acknowledge (the last results may still be on their way).
  const open = async () =>
    Promise.all(
      ['pending', 'sent'].map(async (status) => ((await api('GET', `/api/commands?status=${status}&limit=1`)).body as Page).total),
    );
  // A bound, not a timing: under the suite's load on 2 cores the last acknowledgements have taken over a minute.
  const deadline = Date.now() + 5 * 60_000;
  while ((await open()).some((n) => n > 0) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  t.same(await open(), [0, 0], 'no command pending or sent');
  for (const sim of sims) {
    const held = [...sim.users().keys()];
    t.equal(held.length, active.size, `${sim.sn}: ${active.size} users`);
    t.ok(
      held.every((pin) => active.has(pin)),
      `${sim.sn}: only active users`,
    );
    const sample = sim.users().get('100001');
    t.match(sample, { name: 'First1 Last1', card: '5000001' }, `${sim.sn}: user data as imported`);
    if (sim.protocol === 'v3') t.equal(sim.authorizations(String(100_000 + USERS - 1)).length, 1, `${sim.sn}: v3 rights rows too`);
    t.equal(sim.stats.errors, 0, `${sim.sn}: no failed requests`);
    t.same(Object.keys(sim.stats.commandsByCode), ['0'], `${sim.sn}: every line answered Return=0`);
  }
  const failed = (await api('GET', '/api/commands?status=failed&limit=1')).body as Page;
  t.equal(failed.total, 0, 'no failed sync ops');
});
