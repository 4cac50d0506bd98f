// End-to-end user sync (DESIGN.md "Sync", API-CONTRACT §5 Users, §6): the real app on port 0 with a
// temporary SQLite store, a mixed fleet played by the simulator (which shares no code with protocols/),
// and the REST API as an integrator uses it. Every assertion is on what a terminal holds and on the
// command lines it executed, in its own dialect [COMMANDS §5].
//
// Location 1: A v2/FP10, B v3/FP10, C v2/FP12, D v3/FP12 (every dialect × fingerprint algorithm, so
// template compatibility matters [COMMANDS §3.9]). Location 2: E v3/FP10, which must see none of it.
import t, { type Test } from 'tap';
import { createSimulatedDevice, type ExecutedCommand, type SimulatedDevice } from '../../src/simulator/index.js';
import { ADMIN_TOKEN, bearer, fetchJson, jsonBody, startApp, waitFor } from '../helpers/app.js';

type Teardown = Parameters<typeof startApp>[0];
type Api = (method: string, path: string, body?: unknown) => Promise<{ status: number; body: unknown }>;

interface Spec {
  readonly sn: string;
  readonly protocol: 'v2' | 'v3';
  readonly fpVersion: 10 | 12;
}

interface CommandView {
  id: number;
  sn: string;
  status: string;
  params: { op?: string; pin?: number } | null;
}
interface Page<T> {
  data: T[];
  total: number;
}
interface UserView {
  pin: number;
  is_active: boolean;
  has_biometric: boolean;
  biometric_templates: unknown[] | null;
}

const LOCATION_1: readonly Spec[] = [
  { sn: 'SYNC-A-V2-FP10', protocol: 'v2', fpVersion: 10 },
  { sn: 'SYNC-B-V3-FP10', protocol: 'v3', fpVersion: 10 },
  { sn: 'SYNC-C-V2-FP12', protocol: 'v2', fpVersion: 12 },
  { sn: 'SYNC-D-V3-FP12', protocol: 'v3', fpVersion: 12 },
];
const LOCATION_2: readonly Spec[] = [{ sn: 'SYNC-E-V3-FP10', protocol: 'v3', fpVersion: 10 }];

const apiFor =
  (url: string, token: string): Api =>
  async (method, path, body) => {
    const { res, body: parsed } = await fetchJson(
      `${url}${path}`,
      body === undefined ? { method, headers: bearer(token) } : jsonBody(method, body, bearer(token)),
    );
    return { status: res.status, body: parsed };
  };

/** Polls an async condition every 20 ms (no fixed sleeps: it returns as soon as the condition holds). */
async function until(condition: () => Promise<boolean>, ms: number, what: () => string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Every command of the location has finished: nothing pending, nothing sent and unanswered. */
async function settled(api: Api, what: string, ms = 30_000): Promise<void> {
  let open = '';
  await until(
    async () => {
      const [pending, sent] = await Promise.all(
        ['pending', 'sent'].map(async (s) => ((await api('GET', `/api/commands?status=${s}&limit=1`)).body as Page<CommandView>).total),
      );
      open = `${pending} pending, ${sent} sent`;
      return pending === 0 && sent === 0;
    },
    ms,
    () => `${what} (${open})`,
  ).catch(async (err: unknown) => {
    // Say which commands are stuck: that is what a failure report needs.
    const stuck = ((await api('GET', '/api/commands?status=sent&limit=20')).body as Page<CommandView>).data;
    throw new Error(`${(err as Error).message}; sent: ${JSON.stringify(stuck)}`);
  });
}

async function syncOps(api: Api, status: string): Promise<CommandView[]> {
  return ((await api('GET', `/api/commands?command=sync-users&status=${status}&limit=100`)).body as Page<CommandView>).data;
}

interface Fleet {
  readonly url: string;
  readonly api1: Api;
  readonly api2: Api;
  readonly sims: Map<string, SimulatedDevice>;
  sim(sn: string): SimulatedDevice;
  /** assigns `spec` to the location of `api`, starts its simulator and waits for its handshake */
  add(api: Api, spec: Spec): Promise<SimulatedDevice>;
}

async function fleet(t: Teardown, loc2 = true): Promise<Fleet> {
  // longpollS 1: an idle v3 poll returns within a second, so "it polled and got nothing" is quick to see.
  const app = await startApp(t, { config: { adminToken: ADMIN_TOKEN, longpollS: 1 } });
  const api1 = apiFor(app.url, app.token);
  const created = await fetchJson(`${app.url}/admin/locations`, jsonBody('POST', { name: 'Site 2' }, bearer(ADMIN_TOKEN)));
  if (created.res.status !== 201) throw new Error(`creating location 2: HTTP ${created.res.status}`);
  const api2 = apiFor(app.url, (created.body as { token: string }).token);
  const sims = new Map<string, SimulatedDevice>();
  const f: Fleet = {
    url: app.url,
    api1,
    api2,
    sims,
    sim(sn) {
      const s = sims.get(sn);
      if (!s) throw new Error(`no simulator ${sn}`);
      return s;
    },
    async add(api, spec) {
      const assigned = await api('POST', '/api/devices', { sn: spec.sn, name: spec.sn });
      if (assigned.status !== 201) throw new Error(`assigning ${spec.sn}: HTTP ${assigned.status}`);
      const sim = createSimulatedDevice({
        url: app.url,
        sn: spec.sn,
        protocol: spec.protocol,
        fpVersion: spec.fpVersion,
        pollDelayMs: 50,
        fast: true,
        requestTimeoutMs: 30_000,
        retryDelayMs: 200,
      });
      t.teardown(() => sim.stop());
      sims.set(spec.sn, sim);
      sim.start();
      await waitFor(() => sim.stats.polls > 0, 20_000, `${spec.sn} handshake and first poll`);
      return sim;
    },
  };
  for (const spec of LOCATION_1) await f.add(api1, spec);
  if (loc2) for (const spec of LOCATION_2) await f.add(api2, spec);
  return f;
}

const PIN_FIELD = /(?:^|[\s\t])(?:PIN|Pin|pin)=(\d+)(?:\t|$)/;
/** Command lines a device executed about one user (any table), in order. */
const about = (sim: SimulatedDevice, pin: number | string, from = 0): ExecutedCommand[] =>
  sim
    .executed()
    .slice(from)
    .filter((c) => PIN_FIELD.exec(c.command)?.[1] === String(pin));

const v2User = (pin: number, name: string, privilege: number, card: string) =>
  `DATA UPDATE USERINFO PIN=${pin}\tName=${name}\tPri=${privilege}\tPasswd=\tCard=${card}\tGrp=1\tTZ=0000000100000000`;
const v3User = (pin: number, name: string, privilege: number, card: string) =>
  `DATA UPDATE user CardNo=${card}\tPin=${pin}\tPassword=\tGroup=0\tStartTime=0\tEndTime=0\tName=${name}\tPrivilege=${privilege}`;
const v3Authorize = (pin: number) => `DATA UPDATE userauthorize Pin=${pin}\tAuthorizeTimezoneId=1\tAuthorizeDoorId=1`;

/** The upsert lines a device of `spec` must execute for a user without templates [COMMANDS §5.1]. */
const upsertLines = (spec: Spec, pin: number, name: string, privilege: number, card: string): string[] =>
  spec.protocol === 'v2' ? [v2User(pin, name, privilege, card)] : [v3User(pin, name, privilege, card), v3Authorize(pin)];

/** [COMMANDS §5.2] v2 one line (cascades); v3 rights, templates, biodata (FP12 devices), then the user. */
const deleteLines = (spec: Spec, pin: number): string[] =>
  spec.protocol === 'v2'
    ? [`DATA DELETE USERINFO PIN=${pin}`]
    : [
        `DATA DELETE userauthorize Pin=${pin}`,
        `DATA DELETE templatev10 Pin=${pin}`,
        ...(spec.fpVersion === 12 ? [`DATA DELETE biodata Pin=${pin}`] : []),
        `DATA DELETE user Pin=${pin}`,
      ];

/** Lines of the other dialect never reach a device. */
function checkDialect(t: Test, spec: Spec, sim: SimulatedDevice): void {
  const foreign =
    spec.protocol === 'v2'
      ? /^DATA (UPDATE|DELETE) (user|userauthorize|templatev10|biodata) /
      : /^DATA (UPDATE|DELETE) (USERINFO|FINGERTMP|BIODATA|FACE) /;
  t.same(
    sim
      .executed()
      .filter((c) => foreign.test(c.command))
      .map((c) => c.command),
    [],
    `${spec.sn}: no ${spec.protocol === 'v2' ? 'v3' : 'v2'} lines`,
  );
  t.same(
    sim
      .executed()
      .filter((c) => c.returnCode !== 0)
      .map((c) => `${c.command} → ${c.returnCode}`),
    [],
    `${spec.sn}: every line answered Return=0`,
  );
}

function holds(t: Test, spec: Spec, sim: SimulatedDevice, pin: number, name: string, privilege: number, card: string): void {
  const u = sim.users().get(String(pin));
  t.match(u, { name, privilege, card }, `${spec.sn} holds ${pin} ${name}`);
  if (spec.protocol === 'v3')
    t.same(
      sim.authorizations(String(pin)).map((a) => [a.timezoneId, a.doorMask]),
      [[1, 1]],
      `${spec.sn}: ${pin} may open door 1`,
    );
}

function lacks(t: Test, spec: Spec, sim: SimulatedDevice, pin: number): void {
  t.notOk(sim.users().has(String(pin)), `${spec.sn} does not hold ${pin}`);
  t.same(sim.templates(String(pin)), [], `${spec.sn}: no templates of ${pin}`);
  t.same(sim.authorizations(String(pin)), [], `${spec.sn}: no rights of ${pin}`);
}

t.test(
  'create, update, deactivate, reactivate and delete reach every device of the location in its dialect; location 2 sees none of it',
  async (t) => {
    const f = await fleet(t);
    const E = LOCATION_2[0] as Spec;
    const e = f.sim(E.sn);
    // Location 2 holds the same PIN for another person.
    t.equal((await f.api2('POST', '/api/users', { pin: 1001, first_name: 'Zed', last_name: 'Other' })).status, 201);

    t.equal((await f.api1('POST', '/api/users', { pin: 1001, first_name: 'Ann', last_name: 'Lee', card_no: '123456789' })).status, 201);
    t.equal((await f.api1('POST', '/api/users', { pin: 1002, first_name: 'Bob', last_name: 'Ray', privilege: 14 })).status, 201);
    await settled(f.api1, 'location 1: create');
    await settled(f.api2, 'location 2: create');
    for (const spec of LOCATION_1) {
      const sim = f.sim(spec.sn);
      holds(t, spec, sim, 1001, 'Ann Lee', 0, '123456789');
      holds(t, spec, sim, 1002, 'Bob Ray', 14, '');
      t.same(
        about(sim, 1001).map((c) => c.command),
        upsertLines(spec, 1001, 'Ann Lee', 0, '123456789'),
        `${spec.sn}: create of 1001 as one upsert`,
      );
      t.same(
        about(sim, 1002).map((c) => c.command),
        upsertLines(spec, 1002, 'Bob Ray', 14, ''),
        `${spec.sn}: create of 1002 as one upsert`,
      );
    }
    holds(t, E, e, 1001, 'Zed Other', 0, '');
    t.same([...e.users().keys()], ['1001'], 'location 2 device holds only its own user');

    // Update: absent fields keep their values [API-CONTRACT §5 Users].
    const mark = new Map(LOCATION_1.map((s) => [s.sn, f.sim(s.sn).executed().length]));
    t.equal((await f.api1('POST', '/api/users', { pin: 1001, last_name: 'Lee-Smith', card_no: '987654' })).status, 200);
    await settled(f.api1, 'update');
    for (const spec of LOCATION_1) {
      const sim = f.sim(spec.sn);
      holds(t, spec, sim, 1001, 'Ann Lee-Smith', 0, '987654');
      t.same(
        about(sim, 1001, mark.get(spec.sn)).map((c) => c.command),
        upsertLines(spec, 1001, 'Ann Lee-Smith', 0, '987654'),
        `${spec.sn}: update as one upsert with the new data`,
      );
    }

    // Deactivate: access is revoked on every device.
    for (const s of LOCATION_1) mark.set(s.sn, f.sim(s.sn).executed().length);
    t.equal((await f.api1('POST', '/api/users', { pin: 1002, is_active: false })).status, 200);
    await settled(f.api1, 'deactivate');
    for (const spec of LOCATION_1) {
      const sim = f.sim(spec.sn);
      lacks(t, spec, sim, 1002);
      t.same(
        about(sim, 1002, mark.get(spec.sn)).map((c) => c.command),
        deleteLines(spec, 1002),
        `${spec.sn}: deactivation as the dialect's delete sequence`,
      );
      holds(t, spec, sim, 1001, 'Ann Lee-Smith', 0, '987654');
    }

    // Reactivate: the stored data comes back.
    for (const s of LOCATION_1) mark.set(s.sn, f.sim(s.sn).executed().length);
    t.equal((await f.api1('POST', '/api/users', { pin: 1002, is_active: true })).status, 200);
    await settled(f.api1, 'reactivate');
    for (const spec of LOCATION_1) {
      const sim = f.sim(spec.sn);
      holds(t, spec, sim, 1002, 'Bob Ray', 14, '');
      t.same(
        about(sim, 1002, mark.get(spec.sn)).map((c) => c.command),
        upsertLines(spec, 1002, 'Bob Ray', 14, ''),
        `${spec.sn}: reactivation as one upsert`,
      );
    }

    // Delete: gone from the API and from every device.
    for (const s of LOCATION_1) mark.set(s.sn, f.sim(s.sn).executed().length);
    t.equal((await f.api1('DELETE', '/api/users/1001')).status, 200);
    t.equal((await f.api1('GET', '/api/users/1001')).status, 404);
    await settled(f.api1, 'delete');
    for (const spec of LOCATION_1) {
      const sim = f.sim(spec.sn);
      lacks(t, spec, sim, 1001);
      t.same(
        about(sim, 1001, mark.get(spec.sn)).map((c) => c.command),
        deleteLines(spec, 1001),
        `${spec.sn}: delete as the dialect's delete sequence`,
      );
      t.same([...sim.users().keys()], ['1002'], `${spec.sn}: exactly the active roster`);
      checkDialect(t, spec, sim);
    }

    // Location 2: after polling past all of this, E still holds only its own 1001 and was sent nothing else.
    const polls = e.stats.polls;
    await waitFor(() => e.stats.polls >= polls + 2, 20_000, `${E.sn} to poll twice more`);
    holds(t, E, e, 1001, 'Zed Other', 0, '');
    t.same([...e.users().keys()], ['1001']);
    t.same(
      e.executed().map((c) => c.command),
      upsertLines(E, 1001, 'Zed Other', 0, ''),
      'location 2 device executed only its own user',
    );
    checkDialect(t, E, e);
  },
);

t.test("a template enrolled on one device reaches the location's devices with the same algorithm, never location 2", async (t) => {
  const f = await fleet(t);
  const [A, B, C, D] = LOCATION_1 as [Spec, Spec, Spec, Spec];
  const E = LOCATION_2[0] as Spec;
  for (const pin of [3001, 3002]) t.equal((await f.api1('POST', '/api/users', { pin, first_name: `User${pin}` })).status, 201);
  t.equal((await f.api2('POST', '/api/users', { pin: 3001, first_name: 'Elsewhere' })).status, 201);
  await settled(f.api1, 'users on every device');
  await settled(f.api2, 'location 2 user');

  // A (v2, FP10) enrols finger 3 of 3001: uploaded as FINGERTMP [PUSH-v2 §6.4].
  const mark = new Map([...f.sims].map(([sn, s]) => [sn, s.executed().length]));
  t.ok(await f.sim(A.sn).enroll('3001', 3), 'A uploaded the enrolment');
  const [enrolled] = f.sim(A.sn).templates('3001');
  t.match(enrolled, { table: 'FINGERTMP', type: 1, no: 3, majorVer: 10 });
  await settled(f.api1, 'template fan-out from A');
  const user = (await f.api1('GET', '/api/users/3001?include=biometrics')).body as UserView;
  t.equal(user.has_biometric, true);
  t.equal(user.biometric_templates?.length, 1);

  // B (v3, FP10) gets it as templatev10 with the same bytes [COMMANDS §5.3]: user, rights, template.
  const b = f.sim(B.sn);
  t.match(b.templates('3001'), [{ table: 'templatev10', type: 1, no: 3, tmp: enrolled?.tmp }]);
  t.same(
    about(b, 3001, mark.get(B.sn)).map((c) => c.command),
    [...upsertLines(B, 3001, 'User3001', 0, ''), `DATA UPDATE templatev10 Pin=3001\tFingerID=3\tValid=1\tTemplate=${enrolled?.tmp}`],
  );
  // A does not get its own template back.
  t.same(about(f.sim(A.sn), 3001, mark.get(A.sn)), [], 'nothing is sent back to the enrolling device');
  // C and D run algorithm 12: an FP10 template would be garbage there [COMMANDS §3.9]; they get the user only.
  for (const spec of [C, D]) {
    const sim = f.sim(spec.sn);
    t.same(sim.templates('3001'), [], `${spec.sn}: no FP10 template`);
    t.notOk(
      about(sim, 3001, mark.get(spec.sn)).some((c) => /FINGERTMP|templatev10|BIODATA|biodata/.test(c.command)),
      `${spec.sn}: no template line`,
    );
    t.ok(sim.users().has('3001'));
  }
  // Location 2 holds its own 3001 and never sees the template.
  const e = f.sim(E.sn);
  t.same(e.templates('3001'), []);
  t.same(about(e, 3001, mark.get(E.sn)), [], 'location 2 device was sent nothing');

  // C (v2, FP12) enrols 3002: uploaded as BIODATA MajorVer=12 [PUSH-v2 §6.7]; D (v3, FP12) gets biodata.
  for (const [sn, s] of f.sims) mark.set(sn, s.executed().length);
  t.ok(await f.sim(C.sn).enroll('3002', 5), 'C uploaded the enrolment');
  const [bio] = f.sim(C.sn).templates('3002');
  t.match(bio, { table: 'BIODATA', type: 1, no: 5, majorVer: 12 });
  await settled(f.api1, 'template fan-out from C');
  const d = f.sim(D.sn);
  t.match(d.templates('3002'), [{ table: 'biodata', type: 1, no: 5, majorVer: 12, tmp: bio?.tmp }]);
  t.same(
    about(d, 3002, mark.get(D.sn)).map((c) => c.command),
    [
      ...upsertLines(D, 3002, 'User3002', 0, ''),
      `DATA UPDATE biodata pin=3002\tno=5\tindex=0\tvalid=1\tduress=0\ttype=1\tmajorver=12\tminorver=0\tformat=0\ttmp=${bio?.tmp}`,
    ],
  );
  // A and B run algorithm 10: the v12 template must not reach them [COMMANDS §3.9, §5.4].
  for (const spec of [A, B]) {
    const sim = f.sim(spec.sn);
    t.same(
      sim.templates('3002').map((x) => x.tmp === bio?.tmp),
      [],
      `${spec.sn}: the FP12 template is not stored`,
    );
    t.same(
      about(sim, 3002, mark.get(spec.sn))
        .filter((c) => /FINGERTMP|templatev10|BIODATA|biodata/.test(c.command))
        .map((c) => c.command.slice(0, 60)),
      [],
      `${spec.sn}: no template line`,
    );
  }
  t.same(e.templates('3002'), []);
  t.notOk(e.users().has('3002'), 'location 2 device never gets a location 1 user');
  t.same(
    e.executed().map((c) => c.command),
    upsertLines(E, 3001, 'Elsewhere', 0, ''),
    'location 2 device executed only its own user',
  );

  // Deleting the user removes its templates too: v2 USERINFO delete cascades, v3 deletes each table.
  for (const [sn, s] of f.sims) mark.set(sn, s.executed().length);
  t.equal((await f.api1('DELETE', '/api/users/3001')).status, 200);
  await settled(f.api1, 'delete of a user with templates');
  for (const spec of LOCATION_1) {
    const sim = f.sim(spec.sn);
    lacks(t, spec, sim, 3001);
    t.same(
      about(sim, 3001, mark.get(spec.sn)).map((c) => c.command),
      deleteLines(spec, 3001),
      `${spec.sn}: the dialect's delete sequence`,
    );
  }
  t.match(e.users().get('3001'), { name: 'Elsewhere' }, 'location 2 keeps its own 3001');
});

t.test('a device assigned later receives the full active roster with its compatible templates', async (t) => {
  const f = await fleet(t, false);
  const A = LOCATION_1[0] as Spec;
  for (const pin of [6001, 6002, 6003]) t.equal((await f.api1('POST', '/api/users', { pin, first_name: `Roster${pin}` })).status, 201);
  t.equal((await f.api1('POST', '/api/users', { pin: 6004, first_name: 'Inactive', is_active: false })).status, 201);
  t.equal((await f.api1('POST', '/api/users', { pin: 6005, first_name: 'Deactivated' })).status, 201);
  t.equal((await f.api1('POST', '/api/users', { pin: 6006, first_name: 'Deleted' })).status, 201);
  await settled(f.api1, 'roster on the first devices');
  t.ok(await f.sim(A.sn).enroll('6001', 0), 'A enrolled 6001');
  await settled(f.api1, 'template fan-out');
  t.equal((await f.api1('POST', '/api/users', { pin: 6005, is_active: false })).status, 200);
  t.equal((await f.api1('DELETE', '/api/users/6006')).status, 200);
  await settled(f.api1, 'revocations');
  const tmp = f.sim(A.sn).templates('6001')[0]?.tmp;

  for (const spec of [
    { sn: 'SYNC-F-V2-FP10', protocol: 'v2', fpVersion: 10 },
    { sn: 'SYNC-G-V3-FP10', protocol: 'v3', fpVersion: 10 },
    { sn: 'SYNC-H-V3-FP12', protocol: 'v3', fpVersion: 12 },
  ] as const) {
    const sim = await f.add(f.api1, spec);
    await settled(f.api1, `roster on ${spec.sn}`);
    t.same([...sim.users().keys()].sort(), ['6001', '6002', '6003'], `${spec.sn}: exactly the active roster`);
    for (const pin of [6001, 6002, 6003]) holds(t, spec, sim, pin, `Roster${pin}`, 0, '');
    const fp = sim.templates('6001');
    if (spec.fpVersion === 10) t.match(fp, [{ type: 1, no: 0, tmp }], `${spec.sn}: the FP10 template of 6001`);
    else t.same(fp, [], `${spec.sn}: no FP10 template on an FP12 device`);
    t.same(
      sim
        .executed()
        .filter((c) => /DELETE/.test(c.command))
        .map((c) => c.command),
      [],
      `${spec.sn}: a fresh device gets no deletes`,
    );
    checkDialect(t, spec, sim);
  }
});

t.test("a device moved from another location loses that location's users and gets this roster", async (t) => {
  const f = await fleet(t);
  const E = LOCATION_2[0] as Spec;
  const e = f.sim(E.sn);
  t.equal((await f.api2('POST', '/api/users', { pin: 9001, first_name: 'Former' })).status, 201);
  t.equal((await f.api1('POST', '/api/users', { pin: 7001, first_name: 'Current' })).status, 201);
  await settled(f.api2, 'location 2 roster');
  await settled(f.api1, 'location 1 roster');
  t.ok(e.users().has('9001'));
  t.equal((await f.api2('DELETE', `/api/devices/${E.sn}`)).status, 200);
  t.equal((await f.api1('POST', '/api/devices', { sn: E.sn })).status, 201);
  await settled(f.api1, 'roster on the moved device');
  holds(t, E, e, 7001, 'Current', 0, '');
  // [API-CONTRACT §6, DESIGN "Sync"] users synced there for another location are deleted first.
  t.notOk(e.users().has('9001'), "the former location's user was deleted from the device");
  t.same(
    e.executed().map((c) => c.command),
    [...upsertLines(E, 9001, 'Former', 0, ''), ...deleteLines(E, 9001), ...upsertLines(E, 7001, 'Current', 0, '')],
    'its own user, then the delete, then the new roster',
  );
});

t.test('coalescing: ten quick edits while devices are away become one delivery per device with the latest data', async (t) => {
  const f = await fleet(t, false);
  t.equal((await f.api1('POST', '/api/users', { pin: 4001, first_name: 'Edit', last_name: '0' })).status, 201);
  t.equal((await f.api1('POST', '/api/users', { pin: 4002, first_name: 'Gone', last_name: '0' })).status, 201);
  await settled(f.api1, 'first version on every device');
  // The devices go away between two polls (nothing in flight is cut off).
  await Promise.all([...f.sims.values()].map((s) => s.pause()));
  const mark = new Map([...f.sims].map(([sn, s]) => [sn, s.executed().length]));

  for (let i = 1; i <= 10; i++) {
    t.equal((await f.api1('POST', '/api/users', { pin: 4001, last_name: String(i), card_no: String(1000 + i) })).status, 200);
    // 4002: nine edits, then a deactivation; the delete replaces the pending upsert.
    t.equal(
      (await f.api1('POST', '/api/users', i < 10 ? { pin: 4002, last_name: String(i) } : { pin: 4002, is_active: false })).status,
      200,
    );
  }
  const pending = await syncOps(f.api1, 'pending');
  t.same(await syncOps(f.api1, 'sent'), [], 'nothing was handed out while the devices were away');
  t.same(
    pending.map((c) => `${c.sn} ${c.params?.op} ${c.params?.pin}`).sort(),
    LOCATION_1.flatMap((s) => [`${s.sn} user.delete 4002`, `${s.sn} user.upsert 4001`]).sort(),
    'one pending op per user and device',
  );

  for (const s of f.sims.values()) s.start();
  await settled(f.api1, 'delivery after the devices return');
  for (const spec of LOCATION_1) {
    const sim = f.sim(spec.sn);
    holds(t, spec, sim, 4001, 'Edit 10', 0, '1010');
    t.same(
      about(sim, 4001, mark.get(spec.sn)).map((c) => c.command),
      upsertLines(spec, 4001, 'Edit 10', 0, '1010'),
      `${spec.sn}: one upsert with the latest data`,
    );
    lacks(t, spec, sim, 4002);
    t.same(
      about(sim, 4002, mark.get(spec.sn)).map((c) => c.command),
      deleteLines(spec, 4002),
      `${spec.sn}: only the delete of 4002`,
    );
    checkDialect(t, spec, sim);
  }
  const done = await syncOps(f.api1, 'success');
  t.equal(
    done.filter((c) => c.params?.pin === 4001).length,
    2 * LOCATION_1.length,
    'per device: the first delivery and one coalesced delivery',
  );
});

t.test('DELETE /api/users/clear: its counts match the delete ops queued and what the devices lose', async (t) => {
  const f = await fleet(t);
  for (const pin of [5001, 5002, 5003, 5004, 5005])
    t.equal((await f.api1('POST', '/api/users', { pin, first_name: `Clear${pin}` })).status, 201);
  t.equal((await f.api1('POST', '/api/users', { pin: 5006, first_name: 'Inactive', is_active: false })).status, 201);
  t.equal((await f.api2('POST', '/api/users', { pin: 5001, first_name: 'Elsewhere' })).status, 201);
  await settled(f.api1, 'roster');
  await settled(f.api2, 'location 2 roster');
  const devices = [...f.sims.values()];

  // Devices away, so the queued ops can be counted before delivery.
  await Promise.all(devices.map((s) => s.pause()));
  const some = await f.api1('DELETE', '/api/users/clear', { pins: [5001, 5002, 5006, 5999] });
  t.equal(some.status, 200);
  t.match(some.body, { users_deleted: 2, devices_affected: LOCATION_1.length, commands_created: 2 * LOCATION_1.length });
  const queued = await syncOps(f.api1, 'pending');
  t.equal(queued.length, (some.body as { commands_created: number }).commands_created, 'commands_created = delete ops pending');
  t.ok(queued.every((c) => c.params?.op === 'user.delete' && (c.params.pin === 5001 || c.params.pin === 5002)));
  for (const s of devices) s.start();
  await settled(f.api1, 'partial clear delivered');
  for (const spec of LOCATION_1) {
    const sim = f.sim(spec.sn);
    t.same([...sim.users().keys()].sort(), ['5003', '5004', '5005'], `${spec.sn}: cleared users removed`);
    t.same(
      about(sim, 5001)
        .slice(-deleteLines(spec, 5001).length)
        .map((c) => c.command),
      deleteLines(spec, 5001),
    );
  }

  await Promise.all(devices.map((s) => s.pause()));
  const all = await f.api1('DELETE', '/api/users/clear');
  t.equal(all.status, 200);
  t.match(all.body, { users_deleted: 3, devices_affected: LOCATION_1.length, commands_created: 3 * LOCATION_1.length });
  t.equal((await syncOps(f.api1, 'pending')).length, 3 * LOCATION_1.length);
  const again = await f.api1('DELETE', '/api/users/clear');
  t.match(again.body, { users_deleted: 0, devices_affected: LOCATION_1.length, commands_created: 0 }, 'clearing again queues nothing');
  for (const s of devices) s.start();
  await settled(f.api1, 'full clear delivered');
  for (const spec of LOCATION_1) t.same([...f.sim(spec.sn).users().keys()], [], `${spec.sn}: empty`);
  const users = ((await f.api1('GET', '/api/users?limit=100')).body as Page<UserView>).data;
  t.same(
    users.map((u) => [u.pin, u.is_active]),
    [
      [5001, false],
      [5002, false],
      [5003, false],
      [5004, false],
      [5005, false],
      [5006, false],
    ],
    'soft-deleted: still readable, inactive',
  );

  const E = LOCATION_2[0] as Spec;
  await settled(f.api2, 'location 2');
  holds(t, E, f.sim(E.sn), 5001, 'Elsewhere', 0, '');
  t.same([...f.sim(E.sn).users().keys()], ['5001'], 'location 2 untouched');
});
