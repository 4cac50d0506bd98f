/**
 * Issue #19, CLI: `device list|assign|unassign|unassigned`, `command send [--wait]` and
 * `attendance export`, end to end: the real app, raw device requests through /iclock, the CLI
 * on the same store, the API to check what it did.
 */
import t, { type Test } from 'tap';
import { bearer, fetchJson, startApp, type StartedApp } from '../helpers/app.js';
import { cli } from '../helpers/cli.js';
import { AttendanceView, CSV_COLUMNS } from '../../src/views/attendance.js';

async function setup(tt: Parameters<typeof startApp>[0]) {
  const app = await startApp(tt);
  const env = { BIOGATE_STORE: app.storeUrl };
  const text = async (method: 'GET' | 'POST', path: string, body?: string) => {
    const res = await fetch(`${app.url}/iclock/${path}`, { method, ...(body === undefined ? {} : { body }) });
    return { status: res.status, body: await res.text() };
  };
  const api = (path: string) => fetchJson(`${app.url}${path}`, { headers: bearer(app.token) });
  return { app, env, text, api };
}

const parse = <T>(r: { stdout: string }) => JSON.parse(r.stdout) as T;

t.test('device unassigned, assign, list, unassign', async (t) => {
  const { app, env, text, api } = await setup(t);
  const L = String(app.locationId);
  t.same(await cli(['device', 'unassigned'], env), { code: 0, stdout: 'No unassigned devices.\n', stderr: '' });
  await text('GET', 'cdata?SN=FRESH0001&options=all&pushver=2.4.1');
  await text('GET', 'cdata?SN=FRESH0002&options=all&pushver=2.4.1');

  const free = await cli(['device', 'unassigned', '--json'], env);
  t.equal(free.code, 0);
  const rows = parse<{ serial_number: string; first_contact: string; last_contact: string | null; address: string | null }[]>(free);
  t.same(
    rows.map((r) => r.serial_number),
    ['FRESH0001', 'FRESH0002'],
  );
  t.strictSame(Object.keys(rows[0] ?? {}), ['serial_number', 'first_contact', 'last_contact', 'address']);
  t.match(rows[0]?.first_contact, /^\d{4}-\d\d-\d\dT/);
  const textual = await cli(['device', 'unassigned'], env);
  t.match(textual.stdout, /^FRESH0001\tfirst \d{4}-[^\t]+\tlast [^\t]+\t\S+\nFRESH0002\t/);

  const assigned = await cli(['device', 'assign', '--location', L, '--sn', 'FRESH0001', '--name', 'Front door'], env);
  t.same(assigned, { code: 0, stdout: `Assigned FRESH0001 to location ${L}.\n`, stderr: '' });
  const again = await cli(['device', 'assign', '--location', L, '--sn', 'FRESH0001', '--json'], env);
  t.equal(again.code, 0);
  t.match(parse(again), { serial_number: 'FRESH0001', name: 'Front door', location_id: app.locationId, location: { id: app.locationId } });
  const viaApi = await api('/api/devices/FRESH0001');
  t.equal(viaApi.res.status, 200, 'the server sees the assignment');
  t.match(viaApi.body, { serial_number: 'FRESH0001', name: 'Front door' });

  const listed = await cli(['device', 'list', '--location', L, '--json'], env);
  t.same(
    parse<{ serial_number: string }[]>(listed).map((d) => d.serial_number),
    ['FRESH0001'],
  );
  t.match((await cli(['device', 'list', '--location', L], env)).stdout, /^FRESH0001\t(online |offline)\t[^\t]+\t[^\t]+\tFront door\n$/);
  t.same(
    parse<{ serial_number: string }[]>(await cli(['device', 'unassigned', '--json'], env)).map((r) => r.serial_number),
    ['FRESH0002'],
  );

  const other = await cli(['location', 'create', '--name', 'Other', '--json'], env);
  const otherId = String(parse<{ location: { id: number } }>(other).location.id);
  t.same(await cli(['device', 'assign', '--location', otherId, '--sn', 'FRESH0001'], env), {
    code: 1,
    stdout: '',
    stderr: 'biogate device assign: Device FRESH0001 is assigned to another location (DEVICE_OTHER_LOCATION)\n',
  });

  t.same(await cli(['device', 'unassign', '--location', L, '--sn', 'FRESH0001'], env), {
    code: 0,
    stdout: `Unassigned FRESH0001 from location ${L}.\n`,
    stderr: '',
  });
  t.equal((await api('/api/devices/FRESH0001')).res.status, 404);
  t.same(parse<unknown[]>(await cli(['device', 'list', '--location', L, '--json'], env)), []);

  await refusals(t, env, [
    [['device', 'list'], 2, 'biogate device list: --location is required\n'],
    [
      ['device', 'assign', '--location', L, '--sn', 'bad sn'],
      2,
      'biogate device assign: --sn must be 1-64 printable ASCII characters without space, /, < or %\n',
    ],
    [['device', 'list', '--location', '999'], 1, 'biogate device list: Location 999 not found (LOCATION_NOT_FOUND)\n'],
  ]);
});

/** Polls the terminal's mailbox until a line for `name` arrives; returns its id. */
async function nextCommand(text: (m: 'GET', p: string) => Promise<{ body: string }>, sn: string, name: string): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const line = (await text('GET', `getrequest?SN=${sn}`)).body.split('\n').find((l) => l.includes(name));
    const id = line ? /^C:(\d+):/.exec(line)?.[1] : undefined;
    if (id) return id;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no ${name} command arrived`);
}

t.test('command send queues like the API; --wait prints the final status, exit 0 success / 1 failed', async (t) => {
  const { app, env, text, api } = await setup(t);
  const L = String(app.locationId);
  await cli(['device', 'assign', '--location', L, '--sn', 'CMD20001'], env);
  await text('GET', 'cdata?SN=CMD20001&options=all&pushver=2.4.0');

  const queued = await cli(['command', 'send', '--location', L, '--sn', 'CMD20001', 'clear-log', '--json'], env);
  t.equal(queued.code, 0);
  const view = parse<{ id: number; status: string; command: string; sn: string }>(queued);
  t.match(view, { command: 'clear-log', sn: 'CMD20001', status: 'pending' });
  t.match((await api(`/api/commands/${view.id}`)).body, { id: view.id, status: 'pending' }, 'the API sees it');
  const id1 = await nextCommand(text, 'CMD20001', 'CLEAR LOG');
  t.equal(id1, String(view.id));
  await text('POST', 'devicecmd?SN=CMD20001', `ID=${id1}&Return=0&CMD=CLEAR LOG\n`);

  const waiting = cli(['command', 'send', '--location', L, '--sn', 'CMD20001', 'clear-log', '--wait'], env);
  const id2 = await nextCommand(text, 'CMD20001', 'CLEAR LOG');
  await text('POST', 'devicecmd?SN=CMD20001', `ID=${id2}&Return=0&CMD=CLEAR LOG\n`);
  t.same(await waiting, {
    code: 0,
    stdout: `Command ${id2} (clear-log on CMD20001): success\nID=${id2}&Return=0&CMD=CLEAR LOG\n`,
    stderr: '',
  });

  const failing = cli(['command', 'send', '--location', L, '--sn', 'CMD20001', 'clear-log', '--wait', '--json'], env);
  const id3 = await nextCommand(text, 'CMD20001', 'CLEAR LOG');
  await text('POST', 'devicecmd?SN=CMD20001', `ID=${id3}&Return=-1002&CMD=CLEAR LOG\n`);
  const failed = await failing;
  t.equal(failed.code, 1, 'failed: exit 1');
  t.match(parse(failed), { id: Number(id3), status: 'failed' });

  await refusals(t, env, [
    [['command', 'send', '--location', L, '--sn', 'CMD20001'], 2, /^biogate command send: give the command/],
    [
      ['command', 'send', '--location', L, '--sn', 'CMD20001', 'reboot', '--params', '[1]'],
      2,
      /^biogate command send: --params must be a JSON object/,
    ],
    [['command', 'send', '--location', L, '--sn', 'CMD20001', 'rebot'], 2, /^biogate command send: --command: unknown command "rebot"/],
    [
      ['command', 'send', '--location', L, '--sn', 'NOPE0001', 'reboot'],
      1,
      'biogate command send: Device NOPE0001 not found (DEVICE_NOT_FOUND)\n',
    ],
  ]);
});

/** Each call exits with its code, prints nothing on stdout and says why on stderr. */
async function refusals(
  t: Test,
  env: NodeJS.ProcessEnv,
  cases: readonly (readonly [readonly string[], number, string | RegExp])[],
): Promise<void> {
  for (const [argv, code, stderr] of cases) {
    const r = await cli([...argv], env);
    t.equal(r.code, code, argv.join(' '));
    t.equal(r.stdout, '');
    if (typeof stderr === 'string') t.equal(r.stderr, stderr);
    else t.match(r.stderr, stderr);
  }
}

async function punch(
  s: { app: StartedApp; text: (m: 'GET' | 'POST', p: string, b?: string) => Promise<{ body: string }> },
  env: NodeJS.ProcessEnv,
) {
  await cli(['device', 'assign', '--location', String(s.app.locationId), '--sn', 'ATT20001'], env);
  await s.text('GET', 'cdata?SN=ATT20001&options=all&pushver=2.4.0');
  const lines = [
    '1001\t2026-03-01 08:00:00\t0\t1\t0\t0',
    '1002\t2026-03-02 09:30:00\t1\t1\t0\t0',
    '10,"03\t2026-03-05 17:00:00\t1\t15\t0\t0',
  ];
  return (await s.text('POST', 'cdata?SN=ATT20001&table=ATTLOG&Stamp=1', `${lines.join('\n')}\n`)).body;
}

t.test('attendance export: csv and jsonl between --from and --to, newest first', async (t) => {
  const s = await setup(t);
  const { env } = s;
  t.equal(await punch(s, env), 'OK: 3');
  const L = String(s.app.locationId);

  const csv = await cli(['attendance', 'export', '--location', L, '--from', '2026-03-01', '--to', '2026-03-03'], env);
  t.equal(csv.code, 0);
  t.equal(csv.stderr, '');
  const lines = csv.stdout.split('\n');
  t.equal(lines[0], CSV_COLUMNS.join(','), 'the columns of GET /api/attendance.csv');
  t.match(lines[1], /^\d+,ATT20001,1002,,2026-03-02T09:30:00\.000Z,2026-03-02 09:30:00,1,check-out,1,fingerprint,0,/);
  t.match(lines[2], /^\d+,ATT20001,1001,,2026-03-01T08:00:00\.000Z,/);
  t.equal(lines.length, 4, 'header, two rows, final newline');

  const all = await cli(
    ['attendance', 'export', '--location', L, '--from', '2026-01-01', '--to', '2026-12-31T23:59:59Z', '--format', 'csv'],
    env,
  );
  t.ok(all.stdout.includes('"10,""03"'), 'a comma and a quote in a field are quoted (RFC 4180)');

  const jsonl = await cli(
    ['attendance', 'export', '--location', L, '--from', '2026-03-01', '--to', '2026-12-31', '--format', 'jsonl'],
    env,
  );
  t.equal(jsonl.code, 0);
  const records = jsonl.stdout
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as { pin: string; local_time: string });
  t.same(
    records.map((r) => r.pin),
    ['10,"03', '1002', '1001'],
  );
  t.strictSame(Object.keys(records[0] ?? {}), Object.keys(AttendanceView.properties), 'the fields of the API record');

  await refusals(t, env, [
    [['attendance', 'export', '--location', L, '--to', '2026-03-03'], 2, 'biogate attendance export: --from is required\n'],
    [
      ['attendance', 'export', '--location', L, '--from', 'yesterday', '--to', '2026-03-03'],
      2,
      /^biogate attendance export: --from must be a date or datetime/,
    ],
    [
      ['attendance', 'export', '--location', L, '--from', '2026-03-04', '--to', '2026-03-03'],
      2,
      'biogate attendance export: --from must not be after --to\n',
    ],
    [
      ['attendance', 'export', '--location', L, '--from', '2026-03-01', '--to', '2026-03-03', '--format', 'xml'],
      2,
      'biogate attendance export: --format must be csv or jsonl, got "xml"\n',
    ],
    [
      ['attendance', 'export', '--location', '999', '--from', '2026-03-01', '--to', '2026-03-03'],
      1,
      'biogate attendance export: Location 999 not found (LOCATION_NOT_FOUND)\n',
    ],
  ]);
});
