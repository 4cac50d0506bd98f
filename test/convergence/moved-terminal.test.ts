// Issue #31 item 4: a terminal moved from location B to location A has B's users deleted from it, each
// delete confirmed by the terminal, before anything of A reaches it (A's API commands included), and
// those deletes belong to neither location: neither A's nor B's `GET /api/commands`, nor either
// location's feed (hence webhooks, MQTT, the stream) shows the other's PINs. Driven over HTTP by an
// emulated terminal of each dialect; the MongoDB leg runs it on MongoDB (test/mongo-api-leg.mjs).
import t from 'tap';
import { createSimulatedDevice } from '../../src/simulator/index.js';
import type { AnyFeedEvent } from '../../src/events/types.js';
import { ADMIN_TOKEN, bearer, fetchJson, jsonBody, startApp } from '../helpers/app.js';

interface CommandRecord {
  id: number;
  command: string;
  params: { op?: string; pin?: number } | null;
  status: string;
}

for (const protocol of ['v2', 'v3'] as const) {
  t.test(
    `${protocol}: B's users are deleted and confirmed before A's load-users and roster; neither location sees the other's PINs`,
    async (t) => {
      const app = await startApp(t, { config: { adminToken: ADMIN_TOKEN, longpollS: 0 } });
      const as = (token: string) => async (method: string, path: string, body?: unknown) =>
        fetchJson(`${app.url}${path}`, body === undefined ? { method, headers: bearer(token) } : jsonBody(method, body, bearer(token)));
      const a = as(app.token);
      const created = (await fetchJson(`${app.url}/admin/locations`, jsonBody('POST', { name: 'B' }, bearer(ADMIN_TOKEN)))).body as {
        token: string;
        location: { id: number };
      };
      const b = as(created.token);
      const SN = `MOVED${protocol.toUpperCase()}01`;
      const feed: AnyFeedEvent[] = [];
      app.app.feed.subscribe({ locationId: null }, (e) => void feed.push(e));

      // B: 81001 (B only) and 81002 (a PIN A uses for someone else). A: 81002 and 81003.
      for (const pin of [81001, 81002]) t.equal((await b('POST', '/api/users', { pin, first_name: `B${pin}` })).res.status, 201);
      for (const pin of [81002, 81003]) t.equal((await a('POST', '/api/users', { pin, first_name: `A${pin}` })).res.status, 201);
      const sim = createSimulatedDevice({ url: app.url, sn: SN, protocol, requestTimeoutMs: 10_000, retryDelayMs: 50 });
      t.teardown(() => sim.stop());
      await sim.handshake();
      t.equal((await b('POST', '/api/devices', { sn: SN })).res.status, 201);
      const drain = async () => {
        for (let quiet = 0, i = 0; quiet < 2 && i < 50; i++) quiet = (await sim.pollOnce()) === 0 ? quiet + 1 : 0;
      };
      await drain();
      t.same([...sim.users().keys()].sort(), ['81001', '81002'], "B's users on the terminal");
      const bBefore = ((await b('GET', '/api/commands?limit=100')).body as { data: CommandRecord[] }).data.map((c) => c.id);

      t.equal((await b('DELETE', `/api/devices/${SN}`)).res.status, 200, 'unassigned from B');
      t.equal((await a('POST', '/api/devices', { sn: SN })).res.status, 201, 'assigned to A');
      const load = (await a('POST', '/api/commands', { sn: SN, command: 'load-users' })).body as { id: number };
      const mark = sim.executed().length;
      await drain();
      const lines = sim.executed().slice(mark);

      const deletes = (pin: number) => (l: { command: string }) =>
        /DELETE/i.test(l.command) && new RegExp(`pin=${pin}\\b`, 'i').test(l.command);
      const firstNotB = lines.findIndex((l) => !deletes(81001)(l) && !deletes(81002)(l));
      const lastB = Math.max(lines.findLastIndex(deletes(81001)), lines.findLastIndex(deletes(81002)));
      t.ok(lines.some(deletes(81001)) && lines.some(deletes(81002)), "both of B's users were deleted");
      t.ok(
        firstNotB > lastB,
        `every delete of B's users came before anything of A: ${lines.map((l) => l.command.split('\t')[0]).join(' | ')}`,
      );
      t.ok(
        lines.slice(0, firstNotB).every((l) => l.returnCode === 0),
        'each was confirmed by the terminal before the next thing went',
      );
      t.match(lines[firstNotB]?.command, /QUERY/i, "A's own API command (load-users) is the first thing of A the terminal gets");
      t.same([...sim.users().keys()].sort(), ['81002', '81003'], "A's roster on the terminal");
      t.equal(sim.users().get('81002')?.name, 'A81002', "the shared PIN carries A's user");

      const aCommands = ((await a('GET', '/api/commands?limit=100')).body as { data: CommandRecord[] }).data;
      t.match((await a('GET', `/api/commands/${load.id}`)).body, { status: 'success' }, "A's load-users succeeded");
      t.notOk(
        aCommands.some((c) => c.params?.op === 'user.delete' || c.params?.pin === 81001),
        `A's command list shows none of B's deletes or PINs: ${JSON.stringify(aCommands.map((c) => c.params))}`,
      );
      const bAfter = ((await b('GET', '/api/commands?limit=100')).body as { data: CommandRecord[] }).data;
      t.same(
        bAfter.filter((c) => !bBefore.includes(c.id)),
        [],
        "B's command list gains nothing from the move (A's PINs stay A's)",
      );
      await app.app.feed.settled();
      const leaked = feed.filter(
        (e) =>
          (e.location_id === app.locationId && /"pin":81001\b|user\.delete/.test(JSON.stringify(e.data))) ||
          (e.location_id === created.location.id && /"pin":81003\b/.test(JSON.stringify(e.data))),
      );
      t.same(leaked, [], "neither location's feed (webhooks, MQTT, stream) shows the other's PINs");
    },
  );
}
