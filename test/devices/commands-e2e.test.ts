// Issue #5 "Verified by": every preset of the catalog, on every protocol version that has it, end to end
// over real HTTP. Each (preset, version) is queued through the REST API, taken by a terminal and
// acknowledged on /iclock/devicecmd, and followed on GET /api/commands/{id}: pending → sent → final.
//
// The terminal is played by turns, against the real app on port 0 with a temporary store (startApp):
//   1. plain HTTP: the getrequest reply must be exactly `C:<id>:<wire>` (child ids on further lines
//      [COMMANDS §1]), the record must read `sent`, and a posted `Return=0` makes it `success`;
//   2. the simulator (src/simulator, which shares no code with protocols/): a terminal executes the
//      very same line and posts what its firmware would (INFO parameters, querydata, Shell output);
//   3. plain HTTP again for the failures: a negative (or enrolment) `Return` → `failed` with its meaning.
// Then: the v3-only presets on v2 (422, or failed at dispatch while the version was unknown), the
// fallbacks of COMMANDS §2.5, learned refusals (§2.6) and v3 -5000. The wire text is the literal of
// COMMANDS §2.5 and §4–§5, never the encoder's output. No sleeps: the test decides when a terminal polls.
import t, { type Test } from 'tap';
import { CATALOG, type PresetId } from '../../protocols/catalog.js';
import { createSimulatedDevice, type SimulatedDevice } from '../../src/simulator/index.js';
import { bearer, fetchJson, jsonBody, startApp, type StartedApp } from '../helpers/app.js';

// ------------------------------------------------------------------------------------------ the table

type Version = 2 | 3;
type Params = Record<string, unknown>;

/** Ids only known once the app runs (the user Ann Lee, PIN 1001, card 123456789). */
interface Known {
  readonly annId: number;
}

interface Failure {
  /** the line answered with `code` (0 = the head line; the others answer 0) */
  readonly line?: number;
  readonly code: number;
  /** the exact error_message; `{id}` stands for the id of the failing line */
  readonly error: string;
}

interface Row {
  readonly v: Version;
  readonly preset: PresetId;
  /** the `command` field sent, when it is not the preset id (an alias, or a raw string = custom) */
  readonly send?: string;
  readonly params?: Params | ((known: Known) => Params);
  /** the exact wire lines; the first carries the command's id. `[]`: nothing is sent, see `refused` */
  readonly wire: readonly string[];
  /** error_message of a command that has no wire form on this device [COMMANDS §2.3, §2.4] */
  readonly refused?: string;
  /** the `Return` a terminal posts on success (default 0; DATA QUERY answers the record count) */
  readonly ok?: number;
  /** negative (or enrolment) results posted by plain HTTP, each on a fresh copy of the command */
  readonly fails?: readonly Failure[];
  /** what the simulated terminal ends with, when it is not a plain success */
  readonly sim?: { readonly status?: 'failed'; readonly error?: string; readonly response?: RegExp; readonly result?: unknown };
}

// Nothing listens on 127.0.0.1:9, so a download of this URL fails at once, whoever makes it (the rig
// allows loopback firmware URLs: BIOGATE_FIRMWARE_ALLOW_PRIVATE=on).
const FIRMWARE: Params = {
  url: 'https://127.0.0.1:9/zk/SpeedFace-V5L-6.60.1.bin',
  checksum: '5eb63bbbe01eeed093cb22bb8f5acdc3',
  size: 4_194_304,
};
const FIRMWARE_UNREACHABLE = 'firmware download: connect ECONNREFUSED 127.0.0.1:9';
const MARCH: Params = { startDate: '2026-03-01', endDate: '2026-03-31' };
const ENROLL_FINGER = ({ annId }: Known): Params => ({ pin: 1001, user_id: annId, fid: 6 });
const ENROLL_FACE = ({ annId }: Known): Params => ({ pin: 1001, user_id: annId, type: 'face', fid: 111, retry: 2, overwrite: 0 });
const ANN_USERS = { users: [{ pin: '1001', name: 'Ann Lee', card_no: '123456789' }], unknown_pins: [] };

// The v3 terminal reports LockCount=2, so "all doors" is mask 3 and door 3 does not exist.
const ROWS: readonly Row[] = [
  // ---- v2, Attendance PUSH -------------------------------------------------------------------------
  { v: 2, preset: 'reboot', wire: ['REBOOT'] }, // [COMMANDS §4.1]
  { v: 2, preset: 'reboot', send: 'restart', wire: ['REBOOT'] }, // [COMMANDS §4.1] alias
  { v: 2, preset: 'info', wire: ['INFO'], sim: { result: { DeviceName: 'BioGate Sim Attendance', FaceFunOn: '1' } } }, // [COMMANDS §4.2] `~` stripped from keys [PUSH-v2 §5.2]
  { v: 2, preset: 'check', wire: ['CHECK'] }, // [COMMANDS §4.3]
  { v: 2, preset: 'reload-options', wire: ['RELOAD OPTIONS'] }, // [COMMANDS §4.4]
  // [COMMANDS §4.8] an LX35 has no AC_UNLOCK (F4)
  {
    v: 2,
    preset: 'door-unlock',
    wire: ['AC_UNLOCK'],
    fails: [{ code: -1002, error: 'device returned -1002: command not supported by the device' }],
  },
  { v: 2, preset: 'clear-alarm', wire: ['AC_UNALARM'] }, // [COMMANDS §4.11]
  { v: 2, preset: 'load-users', wire: ['DATA QUERY USERINFO'], sim: { result: ANN_USERS } }, // [COMMANDS §4.14] all users
  { v: 2, preset: 'load-users', params: { pin: 1001 }, wire: ['DATA QUERY USERINFO PIN=1001'], sim: { result: ANN_USERS } }, // [COMMANDS §4.14]
  { v: 2, preset: 'load-users', params: ({ annId }) => ({ user_id: annId }), wire: ['DATA QUERY USERINFO PIN=1001'] }, // [COMMANDS §4.14] PIN of user_id
  // [COMMANDS §4.15, §5.1] no wire form of its own: a load-users (to find users the location does not
  // hold, API-CONTRACT §6), then one op per user, each its own record
  {
    v: 2,
    preset: 'sync-users',
    wire: [
      'DATA QUERY USERINFO',
      'DATA UPDATE USERINFO PIN=1001\tName=Ann Lee\tPri=0\tPasswd=\tCard=123456789\tGrp=1\tTZ=0000000100000000',
    ],
  },
  // [COMMANDS §4.16] only Return=0 is success; 2 = the user already has that finger [PUSH-v2 §8.6]
  {
    v: 2,
    preset: 'enroll-biometric',
    params: ENROLL_FINGER,
    wire: ['ENROLL_FP PIN=1001\tFID=6\tRETRY=3\tOVERWRITE=1'],
    fails: [{ code: 2, error: 'device returned 2: the user already has that finger' }],
  },
  { v: 2, preset: 'enroll-biometric', params: ENROLL_FACE, wire: ['ENROLL_BIO TYPE=9\tPIN=1001\tCardNo=\tRETRY=2\tOVERWRITE=0'] }, // [COMMANDS §4.16, §3.9] MultiBioDataSupport[9]=1
  {
    v: 2,
    preset: 'check-attendance',
    params: MARCH,
    wire: ['DATA QUERY ATTLOG StartTime=2026-03-01 00:00:00\tEndTime=2026-03-31 23:59:59'],
  }, // [COMMANDS §4.17]
  { v: 2, preset: 'check-attendance', wire: ['DATA QUERY ATTLOG StartTime=2000-01-01 00:00:00\tEndTime=2099-12-31 23:59:59'] }, // [COMMANDS §4.17] all logs
  { v: 2, preset: 'clear-log', wire: ['CLEAR LOG'] }, // [COMMANDS §4.18]
  { v: 2, preset: 'clear-photo', wire: ['CLEAR PHOTO'] }, // [COMMANDS §4.19]
  { v: 2, preset: 'clear-biodata', wire: ['CLEAR BIODATA'] }, // [COMMANDS §4.20]
  { v: 2, preset: 'clear-data', wire: ['CLEAR DATA'], fails: [{ code: -1005, error: 'device returned -1005: device busy' }] }, // [COMMANDS §4.21]
  // [COMMANDS §4.22] method 1. The simulated terminal asks BioGate for /iclock/file; BioGate cannot reach
  // the firmware server and fails the command with the reason (a served file: runtime-lifecycle.test.ts).
  {
    v: 2,
    preset: 'firmware-upgrade',
    params: FIRMWARE,
    wire: ['UPGRADE checksum=5eb63bbbe01eeed093cb22bb8f5acdc3,url=https://127.0.0.1:9/zk/SpeedFace-V5L-6.60.1.bin,size=4194304'],
    fails: [{ code: -1008, error: 'device returned -1008: failed to fetch data from the server' }],
    sim: { status: 'failed', error: FIRMWARE_UNREACHABLE },
  },
  // [COMMANDS §4.23] output in the key-per-line result's Content= [PUSH-v2 §8.2]
  {
    v: 2,
    preset: 'shell-command',
    params: { command: 'date' },
    wire: ['SHELL date'],
    sim: { response: /^ID=\d+\nReturn=0\nCMD=Shell\nContent=\w{3} \w{3} \d{1,2} \d\d:\d\d:\d\d GMT \d{4}$/ },
  },
  { v: 2, preset: 'custom', params: { command: 'DATA QUERY FINGERTMP PIN=1001' }, wire: ['DATA QUERY FINGERTMP PIN=1001'] }, // [COMMANDS §4.24, §5.6]
  { v: 2, preset: 'custom', send: 'DATA QUERY BIODATA Type=9\tPIN=1001', wire: ['DATA QUERY BIODATA Type=9\tPIN=1001'] }, // [COMMANDS §4.24, §5.6] raw string as the command

  // ---- v3, Security PUSH ---------------------------------------------------------------------------
  {
    v: 3,
    preset: 'reboot',
    wire: ['CONTROL DEVICE 03000000'],
    fails: [{ code: -615, error: 'device returned -615: remote restart failed' }],
  }, // [COMMANDS §4.1]
  {
    v: 3,
    preset: 'info', // [COMMANDS §4.2] values arrive on /iclock/querydata?type=options
    wire: [
      'GET OPTIONS ~SerialNumber,FirmVer,~DeviceName,MachineType,LockCount,ReaderCount,AuxInCount,AuxOutCount,~MaxUserCount,~MaxAttLogCount,~MaxUserFingerCount,IPAddress,NetMask,GATEIPAddress,~ZKFPVersion',
    ],
    sim: { result: { SerialNumber: 'E2EV3001', DeviceName: 'BioGate Sim Access', LockCount: '2' } },
  },
  { v: 3, preset: 'check', wire: ['GET OPTIONS ~SerialNumber,FirmVer'] }, // [COMMANDS §4.3]
  {
    v: 3,
    preset: 'reload-options',
    wire: [],
    refused: 'reload-options is not supported on Security PUSH (v3) devices: the protocol has no reload-options command',
  }, // [COMMANDS §4.4, §2.4]
  { v: 3, preset: 'door-open', wire: ['CONTROL DEVICE 01010105'] }, // [COMMANDS §4.5] defaults: door 1, 5 s
  // [COMMANDS §4.5] -28 = refused during a normal-open period
  {
    v: 3,
    preset: 'door-open',
    params: { door_id: 2, duration: 30 },
    wire: ['CONTROL DEVICE 0102011E'],
    fails: [{ code: -28, error: 'device returned -28: door-open refused during a normal-open period' }],
  },
  { v: 3, preset: 'door-open', params: { door_id: 1, duration: 254 }, wire: ['CONTROL DEVICE 010101FE'] }, // [COMMANDS §4.5, §3.3]
  { v: 3, preset: 'door-open', params: { door_id: 3 }, wire: [], refused: 'door 3 does not exist on this device (LockCount=2)' }, // [COMMANDS §2.3]
  { v: 3, preset: 'door-close', wire: ['CONTROL DEVICE 01010100'] }, // [COMMANDS §4.6]
  { v: 3, preset: 'door-lock', wire: ['CONTROL DEVICE 06010100'] }, // [COMMANDS §4.7]
  { v: 3, preset: 'door-unlock', wire: ['CONTROL DEVICE 06010000'] }, // [COMMANDS §4.8]
  { v: 3, preset: 'normal-open', wire: ['CONTROL DEVICE 010101FF'] }, // [COMMANDS §4.9]
  {
    v: 3,
    preset: 'cancel-alarm',
    wire: ['CONTROL DEVICE 02000000'],
    fails: [{ code: -614, error: 'device returned -614: remote cancel-alarm failed' }],
  }, // [COMMANDS §4.10]
  { v: 3, preset: 'clear-alarm', wire: ['CONTROL DEVICE 02000000'] }, // [COMMANDS §4.11]
  { v: 3, preset: 'emergency-on', wire: ['CONTROL DEVICE 07010000'] }, // [COMMANDS §4.12]
  {
    v: 3,
    preset: 'emergency-off',
    wire: [], // [COMMANDS §4.13, §2.4]
    refused:
      'emergency-off is not supported on Security PUSH (v3) devices: the protocol documents no operation that ends emergency mode (07 02 is an emergency lock-down, not a release); use door-close per door or reboot',
  },
  { v: 3, preset: 'load-users', wire: ['DATA QUERY tablename=user,fielddesc=*,filter=*'], ok: 1, sim: { result: ANN_USERS } }, // [COMMANDS §4.14]
  {
    v: 3,
    preset: 'load-users',
    params: { pin: 1001 },
    wire: ['DATA QUERY tablename=user,fielddesc=*,filter=*'],
    ok: 1,
    sim: { result: ANN_USERS },
  }, // [COMMANDS §4.14] BioGate filters
  {
    v: 3,
    preset: 'sync-users', // [COMMANDS §4.15, §5.1] load-users, then Ann's op: user + userauthorize (all doors of LockCount=2)
    wire: [
      'DATA QUERY tablename=user,fielddesc=*,filter=*',
      'DATA UPDATE user CardNo=123456789\tPin=1001\tPassword=\tGroup=0\tStartTime=0\tEndTime=0\tName=Ann Lee\tPrivilege=0',
      'DATA UPDATE userauthorize Pin=1001\tAuthorizeTimezoneId=1\tAuthorizeDoorId=3',
    ],
  },
  {
    v: 3,
    preset: 'enroll-biometric',
    params: ENROLL_FINGER,
    wire: ['ENROLL_BIO type=1\tno=6\tpin=1001\tcardno=123456789\tretry=3\toverwrite=1'],
  }, // [COMMANDS §4.16] cardno: Ann has a card
  {
    v: 3,
    preset: 'enroll-biometric',
    params: ENROLL_FACE,
    wire: ['ENROLL_BIO type=9\tno=0\tpin=1001\tcardno=123456789\tretry=2\toverwrite=0'],
  }, // [COMMANDS §4.16, §3.9] fid 111
  { v: 3, preset: 'check-attendance', params: MARCH, wire: ['DATA QUERY tablename=transaction,fielddesc=*,filter=*'], ok: 1 }, // [COMMANDS §4.17]
  { v: 3, preset: 'clear-log', wire: ['DATA DELETE transaction *'] }, // [COMMANDS §4.18]
  {
    v: 3,
    preset: 'clear-photo',
    wire: [],
    refused: 'clear-photo is not supported on Security PUSH (v3) devices: the protocol has no command that deletes attendance photos',
  }, // [COMMANDS §4.19, §2.4]
  // [COMMANDS §4.20, §1] two lines; the record fails when one line fails
  {
    v: 3,
    preset: 'clear-biodata',
    wire: ['DATA DELETE templatev10 *', 'DATA DELETE biodata *'],
    fails: [{ line: 1, code: -100, error: 'line {id}: device returned -100: table does not exist' }],
  },
  // [COMMANDS §4.21] this order; no photo tables on a terminal without BioPhotoFun / PhotoFunOn
  {
    v: 3,
    preset: 'clear-data',
    wire: [
      'DATA DELETE userauthorize *',
      'DATA DELETE templatev10 *',
      'DATA DELETE biodata *',
      'DATA DELETE user *',
      'DATA DELETE transaction *',
    ],
  },
  {
    v: 3,
    preset: 'firmware-upgrade',
    params: FIRMWARE, // [COMMANDS §4.22] same as v2; failure codes [PUSH-v3 §11.7]
    wire: ['UPGRADE checksum=5eb63bbbe01eeed093cb22bb8f5acdc3,url=https://127.0.0.1:9/zk/SpeedFace-V5L-6.60.1.bin,size=4194304'],
    fails: [{ code: -19, error: 'device returned -19: checksum error' }],
    sim: { status: 'failed', error: FIRMWARE_UNREACHABLE },
  },
  {
    v: 3,
    preset: 'shell-command',
    params: { command: 'date' },
    wire: [],
    refused: 'shell-command is not supported on Security PUSH (v3) devices: the protocol has no shell command',
  }, // [COMMANDS §4.23, §2.4]
  {
    v: 3,
    preset: 'custom',
    params: { command: 'DATA QUERY tablename=biodata,fielddesc=*,filter=Type=9\tPin=1001' },
    wire: ['DATA QUERY tablename=biodata,fielddesc=*,filter=Type=9\tPin=1001'],
  }, // [COMMANDS §4.24, §5.6]
  { v: 3, preset: 'custom', send: 'CONTROL DEVICE 07020000', wire: ['CONTROL DEVICE 07020000'] }, // [COMMANDS §4.24, §4.13] the lock-down, only as custom
];

/** [COMMANDS §2.2, §2.4] presets tagged v3 only: 422 on a device known to speak v2; failed with this text
 *  at dispatch when queued before the version was known. */
const V2_NO_WIRE_FORM: Readonly<Partial<Record<PresetId, string>>> = {
  'door-open':
    'door-open is not supported on Attendance PUSH (v2) devices: the protocol cannot address a door or a duration; use door-unlock',
  'door-close': 'door-close is not supported on Attendance PUSH (v2) devices: attendance terminals have no door-close command',
  'door-lock': 'door-lock is not supported on Attendance PUSH (v2) devices: attendance terminals have no lock-down command',
  'normal-open': 'normal-open is not supported on Attendance PUSH (v2) devices: attendance terminals cannot latch the door open',
  'cancel-alarm':
    'cancel-alarm is not supported on Attendance PUSH (v2) devices: the protocol has no per-door alarm command; use clear-alarm',
  'emergency-on': 'emergency-on is not supported on Attendance PUSH (v2) devices: attendance terminals have no emergency mode',
  'emergency-off': 'emergency-off is not supported on Attendance PUSH (v2) devices: attendance terminals have no emergency mode',
};

// ------------------------------------------------------------------------------------------ helpers

interface CommandView {
  id: number;
  command: string;
  status: string;
  response: string | null;
  error_message: string | null;
  result: unknown;
  sent_at: string | null;
  acknowledged_at: string | null;
  created_at: string;
}

type Api = (method: string, path: string, body?: unknown) => Promise<{ res: Response; body: unknown }>;

interface Rig {
  readonly app: StartedApp;
  readonly api: Api;
  readonly sn: string;
  readonly sim: SimulatedDevice;
  readonly known: Known;
  view(id: number): Promise<CommandView>;
  /** one plain-HTTP poll, as a terminal makes it */
  getrequest(): Promise<string>;
  devicecmd(body: string): Promise<string>;
}

const SN: Readonly<Record<Version, string>> = { 2: 'E2EV2001', 3: 'E2EV3001' };

function apiFor(app: StartedApp): Api {
  return async (method, path, body) =>
    fetchJson(`${app.url}${path}`, body === undefined ? { method, headers: bearer(app.token) } : jsonBody(method, body, bearer(app.token)));
}

/** The real app, Ann Lee, and one assigned terminal that has handshaken and taken its user sync. */
async function rig(tt: Parameters<typeof startApp>[0], v: Version): Promise<Rig> {
  // no held polls: an idle getrequest answers OK at once
  const app = await startApp(tt, { config: { longpollS: 0, firmwareAllowPrivate: 'on' } });
  const api = apiFor(app);
  const sn = SN[v];
  const ann = (await api('POST', '/api/users', { pin: 1001, first_name: 'Ann', last_name: 'Lee', card_no: '123456789' })).body as {
    id: number;
  };
  if ((await api('POST', '/api/devices', { sn })).res.status !== 201) throw new Error(`could not assign ${sn}`);
  // Not started: the test decides when the terminal polls (pollOnce), so nothing runs in the background.
  const sim = createSimulatedDevice({
    url: app.url,
    sn,
    protocol: v === 2 ? 'v2' : 'v3',
    faceSupport: true,
    lockCount: v === 3 ? 2 : 1,
    requestTimeoutMs: 10_000,
  });
  tt.teardown(() => sim.stop());
  await sim.handshake();
  while ((await sim.pollOnce()) > 0); // the roster (Ann) goes first
  if (!sim.users().has('1001')) throw new Error('Ann was not synced to the terminal');
  // one March punch for check-attendance to find
  if (!(await sim.punch('1001', '2026-03-10 08:00:00'))) throw new Error('punch not acknowledged');
  const device = (await api('GET', `/api/devices/${sn}`)).body as { version: string };
  if (device.version !== `${v}.0.0`) throw new Error(`${sn} detected as ${device.version}`);
  // [PUSH-v3 §5] plain requests carry the registration token like the terminal's own (issue #12).
  const token = sim.session().token;
  const headers: Record<string, string> = token ? { cookie: `token=${token}` } : {};
  return {
    app,
    api,
    sn,
    sim,
    known: { annId: ann.id },
    view: async (id) => (await api('GET', `/api/commands/${id}`)).body as CommandView,
    getrequest: async () => (await fetch(`${app.url}/iclock/getrequest?SN=${sn}`, { headers, signal: AbortSignal.timeout(5000) })).text(),
    devicecmd: async (body) =>
      (await fetch(`${app.url}/iclock/devicecmd?SN=${sn}`, { method: 'POST', body, headers, signal: AbortSignal.timeout(5000) })).text(),
  };
}

const paramsOf = (row: Row, known: Known): Params | undefined => (typeof row.params === 'function' ? row.params(known) : row.params);

const title = (row: Row): string =>
  `${row.preset}${row.send !== undefined ? ` sent as ${JSON.stringify(row.send)}` : ''}${row.params !== undefined && typeof row.params !== 'function' ? ` ${JSON.stringify(row.params)}` : ''}` +
  ` → ${row.wire.length === 0 ? 'nothing sent' : row.wire.map((l) => JSON.stringify(l)).join(' + ')}`;

/** The `CMD` a terminal echoes [PUSH-v2 §8.4, PUSH-v3 §9.2]: the command word (v3: verb pairs). */
function echo(v: Version, line: string): string {
  const words = line.split(' ');
  if (v === 2) return words[0] === 'CLEAR' ? `CLEAR_${words[1] ?? ''}` : (words[0] ?? '');
  return ['DATA', 'CONTROL', 'GET', 'SET'].includes(words[0] ?? '') ? words.slice(0, 2).join(' ') : (words[0] ?? '');
}

interface Framed {
  readonly id: number;
  readonly command: string;
}

/** [PUSH-v2 §7.2] `C:${id}:${command}` lines, LF-joined, no final LF; anything else fails the test. */
function unframe(tt: Test, body: string): Framed[] {
  const lines = body.split('\n').map((l) => /^C:(\d+):(.*)$/.exec(l));
  tt.ok(
    lines.every((m) => m !== null),
    `every reply line is C:<id>:<command>: ${JSON.stringify(body)}`,
  );
  return lines.flatMap((m) => (m === null ? [] : [{ id: Number(m[1]), command: m[2] as string }]));
}

/** Queues the row's command; returns its id. */
async function queue(tt: Test, rig: Rig, row: Row): Promise<number> {
  const params = paramsOf(row, rig.known);
  const { res, body } = await rig.api('POST', '/api/commands', {
    sn: rig.sn,
    command: row.send ?? row.preset,
    ...(params ? { params } : {}),
  });
  tt.equal(res.status, 201, 'queued');
  const queued = body as CommandView;
  tt.equal(queued.command, row.preset, 'stored as the preset id');
  if (row.refused !== undefined) {
    // [COMMANDS §2.4] the rig's device has handshaken, so its version is known: failed at once, nothing sent
    tt.match(queued, { status: 'failed', error_message: row.refused, sent_at: null, acknowledged_at: null, response: null });
    return queued.id;
  }
  tt.match(queued, { status: 'pending', sent_at: null, acknowledged_at: null, response: null, error_message: null });
  return queued.id;
}

/**
 * [COMMANDS §4.15] sync-users queues a load-users that goes first (users the device holds and the
 * location does not are then deleted, API-CONTRACT §6) and one op per user, and stays pending until
 * they are delivered (issue #13). The returned ids own the row's lines: line 0 the load-users, line
 * 1 Ann's op (line 2: its child); `record` is the sync-users record itself.
 */
async function queueSyncUsers(tt: Test, rig: Rig): Promise<{ record: number; audit: number; op: number }> {
  const { res, body } = await rig.api('POST', '/api/commands', { sn: rig.sn, command: 'sync-users' });
  tt.equal(res.status, 201, 'queued');
  const queued = body as CommandView & { result: { load_users_id: number } };
  tt.match(queued, {
    command: 'sync-users',
    status: 'pending',
    error_message: null,
    response: null,
    result: { queued: 2, load_users_id: Number },
  });
  const audit = queued.result.load_users_id;
  tt.match(await rig.view(audit), { command: 'load-users', status: 'pending' });
  const ops = (await rig.api('GET', `/api/commands?sn=${rig.sn}&command=sync-users&status=pending`)).body as { data: CommandView[] };
  const own = ops.data.filter((c) => c.id !== queued.id);
  tt.equal(own.length, 1, 'one user op: Ann');
  return { record: queued.id, audit, op: (own[0] as CommandView).id };
}

/** The sync-users record once every op was acknowledged: success with the counts. */
async function assertSyncUsersDone(tt: Test, rig: Rig, record: number): Promise<void> {
  const done = await rig.view(record);
  tt.match(
    done,
    { status: 'success', error_message: null, result: { queued: 2, delivered: 2, failed: 0 } },
    'sync-users: success once the terminal acknowledged everything',
  );
  assertTimes(tt, done);
}

async function syncUsersRaw(tt: Test, rig: Rig, row: Row): Promise<void> {
  const { record, audit, op } = await queueSyncUsers(tt, rig);
  const reply = await rig.getrequest();
  const framed = unframe(tt, reply);
  tt.match(await rig.view(record), { status: 'sent', acknowledged_at: null }, 'sent with its first op');
  tt.same(
    framed.map((f) => f.command),
    row.wire,
    'the exact wire line(s)',
  );
  tt.same(
    framed.slice(0, 2).map((f) => f.id),
    [audit, op],
    'the load-users first, then the user op',
  );
  tt.ok(
    framed.slice(2).every((f) => f.id > op),
    'child ids come after the op id',
  );
  for (const id of [audit, op]) tt.match(await rig.view(id), { status: 'sent', acknowledged_at: null });
  const results = framed.map((f) => `ID=${f.id}&Return=0&CMD=${echo(row.v, f.command)}`);
  tt.equal(await rig.devicecmd(results.join('\n')), 'OK');
  tt.match(await rig.view(audit), { status: 'success', response: results[0] });
  const done = await rig.view(op);
  tt.match(done, { status: 'success', error_message: null, response: results.slice(1).join('\n') });
  assertTimes(tt, done);
  await assertSyncUsersDone(tt, rig, record);
  tt.equal(await rig.getrequest(), 'OK', 'no user to remove');
}

async function syncUsersSimulated(tt: Test, rig: Rig, row: Row): Promise<void> {
  const { record, audit, op } = await queueSyncUsers(tt, rig);
  const before = rig.sim.executed().length;
  tt.equal(await rig.sim.pollOnce(), row.wire.length, 'the terminal executed the line(s)');
  const executed = rig.sim.executed().slice(before);
  tt.same(
    executed.map((e) => e.command),
    row.wire,
    'the terminal received the exact wire line(s)',
  );
  tt.same(
    executed.slice(0, 2).map((e) => e.id),
    [String(audit), String(op)],
  );
  tt.same(
    executed.map((e) => e.returnCode !== null && e.returnCode >= 0),
    row.wire.map(() => true),
    'every line answered Return ≥ 0',
  );
  tt.match(await rig.view(audit), { status: 'success', result: ANN_USERS });
  const done = await rig.view(op);
  tt.match(done, { status: 'success', error_message: null });
  assertTimes(tt, done);
  await assertSyncUsersDone(tt, rig, record);
}

/** Plain HTTP: queue, poll, check the exact reply and `sent`; returns the line ids (head first). */
async function deliverRaw(tt: Test, rig: Rig, row: Row): Promise<{ id: number; ids: number[] }> {
  const id = await queue(tt, rig, row);
  tt.match(await rig.view(id), { status: 'pending', sent_at: null });
  const reply = await rig.getrequest();
  const framed = unframe(tt, reply);
  tt.same(
    framed.map((f) => f.command),
    row.wire,
    'the exact wire line(s)',
  );
  tt.equal(reply, framed.map((f) => `C:${f.id}:${f.command}`).join('\n'), 'nothing else in the reply');
  const ids = framed.map((f) => f.id);
  tt.equal(ids[0], id, 'the first line carries the command id');
  // [COMMANDS §1] further lines carry child ids from the same id sequence
  tt.same([...new Set(ids)], ids, 'line ids are distinct');
  tt.ok(
    ids.slice(1).every((child) => child > id),
    'child ids come after the command id',
  );
  const sent = await rig.view(id);
  tt.match(sent, { status: 'sent', acknowledged_at: null, response: null });
  tt.ok(sent.sent_at !== null && sent.sent_at >= sent.created_at, 'sent_at set');
  return { id, ids };
}

function assertTimes(tt: Test, done: CommandView): void {
  tt.ok(done.sent_at !== null && done.acknowledged_at !== null, 'sent_at and acknowledged_at set');
  tt.ok((done.sent_at ?? '') >= done.created_at && (done.acknowledged_at ?? '') >= (done.sent_at ?? ''), 'created ≤ sent ≤ acknowledged');
}

/**
 * Plain HTTP, success: every line answered `ok` (default 0). One line: one POST. Several lines: one
 * POST per line, last line first, to show results are matched by id only and the record finishes
 * with its last line [COMMANDS §1, PUSH-v2 §8.4].
 */
async function rawSuccess(tt: Test, rig: Rig, row: Row): Promise<void> {
  const { id, ids } = await deliverRaw(tt, rig, row);
  const results = ids.map((lineId, i) => `ID=${lineId}&Return=${row.ok ?? 0}&CMD=${echo(row.v, row.wire[i] ?? '')}`);
  for (const [n, result] of [...results].reverse().entries()) {
    tt.equal(await rig.devicecmd(result), 'OK');
    if (n < results.length - 1)
      tt.match(await rig.view(id), { status: 'sent', acknowledged_at: null }, `still sent after ${n + 1} of ${results.length} results`);
  }
  const done = await rig.view(id);
  tt.match(done, { status: 'success', error_message: null });
  tt.equal(done.response, results.join('\n'), 'response = the results of every line');
  assertTimes(tt, done);
}

async function rawFailure(tt: Test, rig: Rig, row: Row, failure: Failure): Promise<void> {
  const { id, ids } = await deliverRaw(tt, rig, row);
  const line = failure.line ?? 0;
  const results = ids.map((lineId, i) => `ID=${lineId}&Return=${i === line ? failure.code : 0}&CMD=${echo(row.v, row.wire[i] ?? '')}`);
  tt.equal(await rig.devicecmd(results.join('\n')), 'OK');
  const done = await rig.view(id);
  tt.match(done, { status: 'failed', error_message: failure.error.replace('{id}', String(ids[line])) });
  tt.equal(done.response, results.join('\n'));
  assertTimes(tt, done);
}

/** A preset without a wire form on this device: failed, at the latest when the terminal polls; nothing sent. */
async function refused(tt: Test, rig: Rig, row: Row): Promise<void> {
  const id = await queue(tt, rig, row);
  tt.equal(await rig.getrequest(), 'OK', 'nothing is sent');
  tt.match(await rig.view(id), { status: 'failed', error_message: row.refused, sent_at: null, acknowledged_at: null, response: null });
}

/** The simulated terminal polls once, executes the line(s) and posts its results. */
async function simulated(tt: Test, rig: Rig, row: Row): Promise<void> {
  const id = await queue(tt, rig, row);
  const before = rig.sim.executed().length;
  tt.equal(await rig.sim.pollOnce(), row.wire.length, 'the terminal executed the line(s)');
  const executed = rig.sim.executed().slice(before);
  tt.same(
    executed.map((e) => e.command),
    row.wire,
    'the terminal received the exact wire line(s)',
  );
  tt.equal(executed[0]?.id, String(id), 'under the command id');
  const done = await rig.view(id);
  if (row.sim?.status === 'failed') tt.match(done, { status: 'failed', error_message: row.sim.error });
  else {
    tt.match(done, { status: 'success', error_message: null });
    tt.same(
      executed.map((e) => e.returnCode !== null && e.returnCode >= 0),
      row.wire.map(() => true),
      'every line answered Return ≥ 0',
    );
  }
  if (row.sim?.response) tt.match(done.response, row.sim.response);
  if (row.sim?.result !== undefined) tt.match(done.result, row.sim.result, 'result data');
  assertTimes(tt, done);
}

// ------------------------------------------------------------------------------------------ tests

t.test('the table covers every catalog preset on every version it is tagged for [COMMANDS §6]', async (t) => {
  for (const spec of CATALOG) {
    for (const v of [2, 3] as const) {
      const rows = ROWS.filter((r) => r.preset === spec.id && r.v === v);
      if (spec.versions.includes(v)) t.ok(rows.length > 0, `${spec.id} v${v} has a row`);
      else t.ok(rows.length === 0 && V2_NO_WIRE_FORM[spec.id] !== undefined && v === 2, `${spec.id} v${v} is refused (422)`);
    }
  }
  t.same(
    CATALOG.filter((s) => !s.versions.includes(2))
      .map((s) => s.id)
      .sort(),
    Object.keys(V2_NO_WIRE_FORM).sort(),
    '[COMMANDS §2.2] the v3-only presets',
  );
});

for (const v of [2, 3] as const) {
  t.test(`v${v} terminal: every preset delivered, acknowledged and reflected in GET /api/commands/{id}`, async (t) => {
    const r = await rig(t, v);
    const rows = ROWS.filter((row) => row.v === v);

    for (const row of rows) {
      const run = row.refused !== undefined ? refused : row.preset === 'sync-users' ? syncUsersRaw : rawSuccess;
      await t.test(`plain HTTP, Return=${row.ok ?? 0}: ${title(row)}`, async (tt) => run(tt, r, row));
    }
    // The simulated terminal runs after the plain-HTTP rows and before the failures, so nothing it
    // learns from a negative Return [COMMANDS §2.6] changes what it is sent.
    for (const row of rows.filter((x) => x.wire.length > 0)) {
      const run = row.preset === 'sync-users' ? syncUsersSimulated : simulated;
      await t.test(`simulated terminal: ${title(row)}`, async (tt) => run(tt, r, row));
    }
    for (const row of rows) {
      for (const failure of row.fails ?? []) {
        await t.test(`plain HTTP, Return=${failure.code} on line ${failure.line ?? 0}: ${title(row)}`, async (tt) =>
          rawFailure(tt, r, row, failure),
        );
      }
    }
  });
}

t.test(
  'v3-only presets: 422 once the device is known to speak v2; failed at dispatch when queued before [COMMANDS §2.2, §2.4]',
  async (t) => {
    const app = await startApp(t, { config: { longpollS: 0 } });
    const api = apiFor(app);
    await api('POST', '/api/devices', { sn: 'E2EV2NEW' });
    const presets = Object.keys(V2_NO_WIRE_FORM) as PresetId[];
    // version unknown: the catalog check cannot be made, so the command is queued
    const early = new Map<PresetId, number>();
    for (const preset of presets) {
      const { res, body } = await api('POST', '/api/commands', { sn: 'E2EV2NEW', command: preset });
      t.equal(res.status, 201, `${preset} queued while the version is unknown`);
      early.set(preset, (body as CommandView).id);
    }
    const sim = createSimulatedDevice({ url: app.url, sn: 'E2EV2NEW', protocol: 'v2', requestTimeoutMs: 10_000 });
    t.teardown(() => sim.stop());
    await sim.handshake();
    t.equal(await sim.pollOnce(), 0, 'the terminal is sent nothing');
    for (const [preset, id] of early) {
      t.match(
        (await api('GET', `/api/commands/${id}`)).body,
        { status: 'failed', error_message: V2_NO_WIRE_FORM[preset], sent_at: null },
        `${preset} failed at dispatch`,
      );
    }
    // version known (2.0.0 from the handshake): refused at queue time
    for (const preset of presets) {
      const { res, body } = await api('POST', '/api/commands', { sn: 'E2EV2NEW', command: preset });
      t.equal(res.status, 422, `${preset} → 422`);
      t.same(body, { code: 'COMMAND_NOT_SUPPORTED', detail: `${preset} is not supported on protocol 2.0.0 devices (supported: v3.x)` });
    }
  },
);

// ------------------------------------------------------------------------------------ fallbacks

interface FallbackRow {
  readonly v: Version;
  readonly preset: PresetId;
  readonly params?: Params;
  readonly wire: string;
  readonly code: number;
  /** the one fallback, sent again under the same command id */
  readonly fallback: string;
  readonly note?: string;
  /** when the fallback is refused too */
  readonly both?: { readonly code: number; readonly error: string };
}

const FALLBACK_ROWS: readonly FallbackRow[] = [
  // [COMMANDS §2.5, §4.5] an integrated terminal (SenseFace 2A) has no CONTROL DEVICE
  {
    v: 3,
    preset: 'door-open',
    params: { door_id: 2, duration: 30 },
    wire: 'CONTROL DEVICE 0102011E',
    code: -13,
    fallback: 'AC_UNLOCK',
    note: 'door and duration not transmitted',
  },
  {
    v: 3,
    preset: 'info',
    wire: 'GET OPTIONS ~SerialNumber,FirmVer,~DeviceName,MachineType,LockCount,ReaderCount,AuxInCount,AuxOutCount,~MaxUserCount,~MaxAttLogCount,~MaxUserFingerCount,IPAddress,NetMask,GATEIPAddress,~ZKFPVersion',
    code: -1002,
    fallback: 'INFO',
  }, // [COMMANDS §2.5, §4.2]
  { v: 3, preset: 'check', wire: 'GET OPTIONS ~SerialNumber,FirmVer', code: -801, fallback: 'INFO' }, // [COMMANDS §2.5, §4.3]
  {
    v: 3,
    preset: 'cancel-alarm',
    wire: 'CONTROL DEVICE 02000000',
    code: -708,
    fallback: 'AC_UNALARM',
    both: { code: -13, error: 'device returned -13: command does not exist' },
  }, // [COMMANDS §2.5, §4.10]
  { v: 3, preset: 'clear-alarm', wire: 'CONTROL DEVICE 02000000', code: -13, fallback: 'AC_UNALARM' }, // [COMMANDS §2.5, §4.11]
  // [COMMANDS §2.5, §4.17] −1: the `T` time form, once; −1 again: the documented message
  {
    v: 2,
    preset: 'check-attendance',
    params: MARCH,
    wire: 'DATA QUERY ATTLOG StartTime=2026-03-01 00:00:00\tEndTime=2026-03-31 23:59:59',
    code: -1,
    fallback: 'DATA QUERY ATTLOG StartTime=2026-03-01T00:00:00\tEndTime=2026-03-31T23:59:59',
    both: { code: -1, error: 'device returned -1 for both date formats: no records in range, or query not supported' },
  },
  // [COMMANDS §2.5, §4.17] −1002: a full re-upload (ATTLOGStamp=0 on the next handshake) and CHECK
  {
    v: 2,
    preset: 'check-attendance',
    params: MARCH,
    wire: 'DATA QUERY ATTLOG StartTime=2026-03-01 00:00:00\tEndTime=2026-03-31 23:59:59',
    code: -1002,
    fallback: 'CHECK',
    note: 'range query unsupported; full re-upload requested',
  },
];

/** Posts one result per line of `reply`, every line answered `code`; returns the posted body. */
async function answer(tt: Test, r: Rig, v: Version, reply: string, code: number): Promise<string> {
  const body = unframe(tt, reply)
    .map((f) => `ID=${f.id}&Return=${code}&CMD=${echo(v, f.command)}`)
    .join('\n');
  tt.equal(await r.devicecmd(body), 'OK');
  return body;
}

t.test('a refusal is answered with the one fallback of COMMANDS §2.5, under the same command id', async (t) => {
  for (const row of FALLBACK_ROWS) {
    for (const second of [{ code: 0, error: null }, ...(row.both ? [row.both] : [])]) {
      await t.test(
        `v${row.v} ${row.preset}: ${JSON.stringify(row.wire)} → Return=${row.code} → ${JSON.stringify(row.fallback)} → Return=${second.code}`,
        async (tt) => {
          const r = await rig(tt, row.v); // a fresh terminal: nothing learned yet [COMMANDS §2.6]
          const { body } = await r.api('POST', '/api/commands', {
            sn: r.sn,
            command: row.preset,
            ...(row.params ? { params: row.params } : {}),
          });
          const id = (body as CommandView).id;
          const first = await r.getrequest();
          tt.equal(first, `C:${id}:${row.wire}`);
          await answer(tt, r, row.v, first, row.code);
          tt.not((await r.view(id)).status, 'failed', 'not failed: the fallback is on its way');
          if (row.preset === 'check-attendance' && row.code === -1002) {
            // [PUSH-v2 §4.7] the next handshake asks for every attendance record again, once
            const handshake = async () => (await fetch(`${r.app.url}/iclock/cdata?SN=${r.sn}&options=all&pushver=2.4.1`)).text();
            tt.match(await handshake(), /\nATTLOGStamp=0\n/);
            tt.match(await handshake(), /\nATTLOGStamp=None\n/);
          }
          const again = await r.getrequest();
          tt.equal(again, `C:${id}:${row.fallback}`, 'the fallback, same id');
          tt.equal((await r.view(id)).status, 'sent');
          const posted = await answer(tt, r, row.v, again, second.code);
          const done = await r.view(id);
          tt.match(done, { status: second.error === null ? 'success' : 'failed', error_message: second.error, response: posted });
          if (row.note !== undefined) tt.match(done.result, { note: row.note });
          assertTimes(tt, done);
          tt.equal(await r.getrequest(), 'OK', 'tried once');
        },
      );
    }
  }
});

// ------------------------------------------------------------------------------ other outcomes

t.test('a word the terminal refused is not sent again: failed at dispatch [COMMANDS §2.6]', async (t) => {
  const r = await rig(t, 2);
  const first = (await r.api('POST', '/api/commands', { sn: r.sn, command: 'door-unlock' })).body as CommandView;
  const reply = await r.getrequest();
  t.equal(reply, `C:${first.id}:AC_UNLOCK`);
  await answer(t, r, 2, reply, -1002); // an LX35 has no AC_UNLOCK (F4)
  t.match(await r.view(first.id), { status: 'failed', error_message: 'device returned -1002: command not supported by the device' });
  const second = (await r.api('POST', '/api/commands', { sn: r.sn, command: 'door-unlock' })).body as CommandView;
  t.not(second.status, 'sent', 'queued (or failed at once)');
  t.equal(await r.getrequest(), 'OK', 'nothing sent');
  t.match(await r.view(second.id), {
    status: 'failed',
    error_message: 'not supported by this device (learned from Return -1002)',
    sent_at: null,
    acknowledged_at: null,
  });
});

t.test('v3 Return=-5000: forwarded to a sub-controller, the command stays sent until its result [PUSH-v3 §9.1, §12]', async (t) => {
  const r = await rig(t, 3);
  const cmd = (await r.api('POST', '/api/commands', { sn: r.sn, command: 'door-open', params: { door_id: 2, duration: 30 } }))
    .body as CommandView;
  const reply = await r.getrequest();
  t.equal(reply, `C:${cmd.id}:CONTROL DEVICE 0102011E`);
  await answer(t, r, 3, reply, -5000);
  t.match(await r.view(cmd.id), { status: 'sent', acknowledged_at: null, error_message: null });
  t.equal(await r.getrequest(), 'OK', 'not sent again');
  const posted = await answer(t, r, 3, reply, 0);
  const done = await r.view(cmd.id);
  t.match(done, { status: 'success', error_message: null, response: posted });
  assertTimes(t, done);
});

// Behaviour COMMANDS.md infers beyond the wire forms.

t.test('reboot: a new handshake after delivery completes it as success, "device restarted" [COMMANDS §4.1]', async (t) => {
  const r = await rig(t, 2);
  const cmd = (await r.api('POST', '/api/commands', { sn: r.sn, command: 'reboot' })).body as CommandView;
  t.equal(await r.getrequest(), `C:${cmd.id}:REBOOT`);
  await r.sim.handshake(); // restarted before posting its result
  t.match(await r.view(cmd.id), { status: 'success', error_message: null });
  t.match(JSON.stringify(await r.view(cmd.id)), /device restarted/);
});

t.test('a preset with no wire form fails at once when queued for a device of known version [COMMANDS §2.4]', async (t) => {
  const r = await rig(t, 3);
  const { res, body } = await r.api('POST', '/api/commands', { sn: r.sn, command: 'emergency-off' });
  t.equal(res.status, 201);
  t.match(body, { status: 'failed', error_message: /^emergency-off is not supported on Security PUSH \(v3\) devices: / });
});
