// Issue #14 "Verified by", with real processes: two `biogate serve` nodes on one MongoDB-compatible
// server (change streams on), a terminal behind a minimal balancer that sends it to the first node
// and, once that node is killed with SIGKILL, to the second (as nginx does when an upstream fails).
// Every acknowledged command and upload survives, the terminal is served by the other node within
// the lease time, and commands queued after the kill reach it.
import { createServer, request, type Server } from 'node:http';
import t from 'tap';
import { createSimulatedDevice } from '../../src/simulator/index.js';
import { ADMIN_TOKEN, bearer, fetchJson, jsonBody, waitFor, type Teardown } from '../helpers/app.js';
import { NO_DIST, serveProcess, type ServeProcess } from '../helpers/serve.js';
import { startControlledMongo } from '../helpers/mongo-control.js';

const LEASE_S = 5;

type Node = ServeProcess;

const serve = (t: Teardown, name: string, storeUrl: string): Promise<Node> =>
  serveProcess(t, {
    BIOGATE_STORE: storeUrl,
    BIOGATE_NODE_ID: name,
    BIOGATE_ADMIN_TOKEN: ADMIN_TOKEN,
    BIOGATE_BOOTSTRAP: 'off',
    BIOGATE_DEVICE_LEASE_S: String(LEASE_S),
  });

/** Forwards every request to `target` (switchable): the balancer in front of the nodes. */
function balancer(t: Teardown): { url: Promise<string>; target: { url: string } } {
  const target = { url: '' };
  const server: Server = createServer((req, res) => {
    const upstream = new URL(req.url ?? '/', target.url);
    const out = request(upstream, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    out.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(out);
  });
  t.teardown(() => new Promise<void>((r) => server.close(() => r())));
  const url = new Promise<string>((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as { port: number }).port}`)),
  );
  server.on('connection', (s) => t.teardown(() => void s.destroy()));
  return { url, target };
}

t.test(
  'a node killed with SIGKILL: its terminal moves to the other node within the lease, nothing acknowledged is lost',
  { skip: NO_DIST },
  async (t) => {
    const mongo = await startControlledMongo(t);
    if (typeof mongo === 'string') return t.plan(0, mongo); // a visible skip: Java/Maven missing
    const storeUrl = `${mongo.server}/biogate_sigkill`;
    const [a, b] = [await serve(t, 'proc-a', storeUrl), await serve(t, 'proc-b', storeUrl)];
    const created = (await fetchJson(`${a.url}/admin/locations`, jsonBody('POST', { name: 'Site' }, bearer(ADMIN_TOKEN)))).body as {
      token: string;
    };
    const api = (node: Node, method: string, path: string, body?: unknown) =>
      fetchJson(
        `${node.url}${path}`,
        body === undefined ? { method, headers: bearer(created.token) } : jsonBody(method, body, bearer(created.token)),
      );
    t.equal((await api(a, 'POST', '/api/devices', { sn: 'KILLV3', version: '3.0.0' })).res.status, 201);

    const lb = balancer(t);
    lb.target.url = a.url;
    const sim = createSimulatedDevice({
      url: await lb.url,
      sn: 'KILLV3',
      protocol: 'v3',
      pollDelayMs: 50,
      retryDelayMs: 100,
      requestTimeoutMs: 15_000,
    });
    t.teardown(() => sim.stop());
    sim.start();
    await waitFor(() => sim.stats.online, 15_000, 'terminal online through the balancer on A');

    // Before the kill: commands queued on B, delivered by A; punches acknowledged by A.
    const before: number[] = [];
    for (let i = 0; i < 3; i++)
      before.push(((await api(b, 'POST', '/api/commands', { sn: 'KILLV3', command: 'info' })).body as { id: number }).id);
    for (const id of before) await waitFor(() => sim.executed().some((e) => Number(e.id) === id), 10_000, `command ${id} executed`);
    for (let i = 0; i < 3; i++) await sim.punch('42', `2026-03-01 09:0${i}:00`);
    await waitFor(() => sim.stats.uploadsAcknowledged >= 1 && sim.stats.punches >= 3, 10_000, 'punches acknowledged');
    const ackedBefore = sim.executed().filter((e) => before.includes(Number(e.id)) && e.returnCode !== null).length;

    a.child.kill('SIGKILL');
    await a.exited;
    const killedAt = Date.now();
    lb.target.url = b.url;
    const after: number[] = [];
    for (let i = 0; i < 3; i++)
      after.push(((await api(b, 'POST', '/api/commands', { sn: 'KILLV3', command: 'info' })).body as { id: number }).id);
    for (const id of after)
      await waitFor(
        () => sim.executed().some((e) => Number(e.id) === id),
        LEASE_S * 1000 + 10_000,
        `command ${id} (queued after the kill) executed`,
      );
    const movedMs = Date.now() - killedAt;
    t.comment(`terminal served by B ${movedMs} ms after A was killed (lease ${LEASE_S} s)`);

    // Everything A acknowledged is in the store, seen through B.
    const final = async (id: number) => ((await api(b, 'GET', `/api/commands/${id}`)).body as { status: string }).status;
    for (const id of [...before, ...after]) {
      let status = await final(id);
      for (let i = 0; i < 50 && status !== 'success'; i++) {
        await new Promise((r) => setTimeout(r, 100));
        status = await final(id);
      }
      t.equal(status, 'success', `command ${id} success`);
      t.equal(sim.executed().filter((e) => Number(e.id) === id).length, 1, `command ${id} executed once`);
    }
    t.equal(ackedBefore, before.length, 'the commands acknowledged before the kill');
    const punches = (await api(b, 'GET', '/api/attendance?limit=100')).body as { data: { pin: string }[] };
    t.equal(punches.data.filter((p) => p.pin === '42').length, 3, 'every punch A acknowledged is there');
    const device = (await api(b, 'GET', '/api/devices/KILLV3')).body as { is_active: boolean };
    t.equal(device.is_active, true, 'B shows the terminal online');
  },
);
