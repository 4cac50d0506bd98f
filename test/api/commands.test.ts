/**
 * /api/commands and POST /api/devices/{sn}/command over real HTTP
 * [SERVICE-SPEC "Command catalog", API-CONTRACT §4 scopes, §5 Commands]: the
 * CommandResponse, catalog params and defaults, version support, scopes,
 * idempotency, list/read/cancel, the mailbox bound and expiry.
 */
import t from 'tap';
import { fakeClock } from '../helpers/app.js';
import {
  COMMAND_KEYS,
  gateway,
  issueAt,
  keysOf,
  locsOf,
  sorted,
  wellFormedIssues,
  type Call,
  type CommandResponse,
  type ErrorBody,
  type Json,
  type Page,
  type UserResponse,
} from './client.js';

const START = '2026-03-01T08:00:00.000Z';
const DURATION_MESSAGE = 'duration must be 1-254 seconds (use normal-open to latch)';
const DOOR_PRESETS = [
  'door-open',
  'door-close',
  'door-lock',
  'door-unlock',
  'normal-open',
  'cancel-alarm',
  'clear-alarm',
  'emergency-on',
  'emergency-off',
];
const RISKY = ['shell-command', 'custom', 'clear-log', 'clear-photo', 'clear-biodata', 'clear-data', 'firmware-upgrade'];
const FIRMWARE = { url: 'https://firmware.example.com/zk/8.0.4.bin', checksum: '0123456789abcdef0123456789ABCDEF', size: 1_048_576 };

/** A body that queues each preset successfully (params where required). */
const VALID_PARAMS: Record<string, Json | undefined> = {
  'firmware-upgrade': FIRMWARE,
  'shell-command': { command: 'date' },
  custom: { command: 'INFO' },
};

async function queue(api: Call, body: Json, headers: Record<string, string> = {}) {
  return api<CommandResponse>('POST', '/api/commands', { body, headers });
}

t.test('POST /api/commands: 201 with the exact CommandResponse', async (t) => {
  const clock = fakeClock(START);
  const { a, started } = await gateway(t, { clock });
  await a.api('POST', '/api/devices', { body: { sn: 'CMD1' } });
  const [tokenRecord] = await started.app.locations.listTokens(a.id);

  const res = await queue(a.api, { sn: 'CMD1', command: 'reboot' });
  t.equal(res.status, 201);
  t.strictSame(keysOf(res.body), sorted(COMMAND_KEYS), 'CommandResponse fields plus params, result, expires_at, created_by_token_id');
  t.ok(Number.isInteger(res.body.id) && res.body.id > 0);
  t.strictSame(
    { ...res.body, id: 0 },
    {
      id: 0,
      command: 'reboot',
      priority: 0,
      location_id: a.id,
      location: { id: a.id, name: 'Default' },
      sn: 'CMD1',
      status: 'pending',
      response: null,
      error_message: null,
      sent_at: null,
      acknowledged_at: null,
      is_active: true,
      created_at: START,
      updated_at: null,
      params: null,
      result: null,
      expires_at: '2026-03-02T08:00:00.000Z',
      created_by_token_id: tokenRecord?.id ?? -1,
    },
  );
  t.strictSame((await a.api('GET', `/api/commands/${res.body.id}`)).body, res.body, 'GET returns the same record');

  const viaDevice = await a.api<CommandResponse>('POST', '/api/devices/CMD1/command', { body: { command: 'info', priority: 100 } });
  t.equal(viaDevice.status, 201);
  t.strictSame(keysOf(viaDevice.body), sorted(COMMAND_KEYS));
  t.match(viaDevice.body, { command: 'info', priority: 100, sn: 'CMD1', status: 'pending', params: null });

  const restart = await queue(a.api, { sn: 'CMD1', command: 'restart' });
  t.equal(restart.body.command, 'reboot', 'restart is stored and returned as reboot');
  t.equal((await a.api<CommandResponse>('GET', `/api/commands/${restart.body.id}`)).body.command, 'reboot');
  const viaDeviceRestart = await a.api<CommandResponse>('POST', '/api/devices/CMD1/command', { body: { command: 'restart' } });
  t.equal(viaDeviceRestart.body.command, 'reboot');

  for (const params of [null, {}]) {
    const r = await queue(a.api, { sn: 'CMD1', command: 'check', params });
    t.equal(r.status, 201, `a preset without params accepts params ${JSON.stringify(params)}`);
    t.equal(r.body.params, null);
  }

  // The device variant takes no sn in the body; its path decides.
  const stray = await a.api<ErrorBody>('POST', '/api/devices/NOPE/command', { body: { command: 'reboot', sn: 'CMD1' } });
  t.equal(stray.status, 404, 'the path serial wins over a stray body sn');
});

t.test('catalog defaults: door-open, enroll-biometric (with user checks), load-users, check-attendance', async (t) => {
  const { a } = await gateway(t);
  await a.api('POST', '/api/devices', { body: { sn: 'CMD1' } });
  const user = await a.api<UserResponse>('POST', '/api/users', { body: { pin: 501, first_name: 'Enrol' } });
  const other = await a.api<UserResponse>('POST', '/api/users', { body: { pin: 502, first_name: 'Other' } });

  t.strictSame((await queue(a.api, { sn: 'CMD1', command: 'door-open' })).body.params, { door_id: 1, duration: 5 });
  t.strictSame((await queue(a.api, { sn: 'CMD1', command: 'door-open', params: null })).body.params, { door_id: 1, duration: 5 });
  t.strictSame((await queue(a.api, { sn: 'CMD1', command: 'door-open', params: { door_id: 4 } })).body.params, { door_id: 4, duration: 5 });
  t.strictSame((await queue(a.api, { sn: 'CMD1', command: 'door-open', params: { door_id: 2, duration: 254 } })).body.params, {
    door_id: 2,
    duration: 254,
  });

  const enroll = await queue(a.api, { sn: 'CMD1', command: 'enroll-biometric', params: { pin: 501, user_id: user.body.id } });
  t.equal(enroll.status, 201);
  t.strictSame(enroll.body.params, { pin: 501, user_id: user.body.id, type: 'fingerprint', fid: 0, retry: 3, overwrite: 1 });
  const face = await queue(a.api, {
    sn: 'CMD1',
    command: 'enroll-biometric',
    params: { pin: 501, user_id: user.body.id, type: 'face', fid: 111, retry: 1, overwrite: 0 },
  });
  t.strictSame(face.body.params, { pin: 501, user_id: user.body.id, type: 'face', fid: 111, retry: 1, overwrite: 0 });

  const mismatch = await queue(a.api, { sn: 'CMD1', command: 'enroll-biometric', params: { pin: 501, user_id: other.body.id } });
  t.equal(mismatch.status, 422);
  t.strictSame(locsOf(mismatch.body), ['body.params.user_id'], 'user_id must be the user with that pin');
  const unknown = await queue(a.api, { sn: 'CMD1', command: 'enroll-biometric', params: { pin: 999, user_id: user.body.id } });
  t.equal(unknown.status, 422);
  t.strictSame(locsOf(unknown.body), ['body.params.pin'], 'the pin must be an existing user');
  const missing = await queue(a.api, { sn: 'CMD1', command: 'enroll-biometric' });
  t.strictSame(locsOf(missing.body), ['body.params.pin', 'body.params.user_id'], 'pin and user_id are required');

  t.strictSame((await queue(a.api, { sn: 'CMD1', command: 'load-users' })).body.params, { user_id: null, pin: null });
  t.strictSame((await queue(a.api, { sn: 'CMD1', command: 'load-users', params: { pin: 502 } })).body.params, { user_id: null, pin: 502 });
  t.strictSame(
    (await queue(a.api, { sn: 'CMD1', command: 'load-users', params: { user_id: other.body.id } })).body.params,
    { user_id: other.body.id, pin: 502 },
    'user_id alone is resolved to the pin',
  );
  t.strictSame(locsOf((await queue(a.api, { sn: 'CMD1', command: 'load-users', params: { user_id: 999_999 } })).body), [
    'body.params.user_id',
  ]);
  t.strictSame(
    (await queue(a.api, { sn: 'CMD1', command: 'check-attendance', params: { startDate: '2026-01-01', endDate: '2026-01-31' } })).body
      .params,
    { startDate: '2026-01-01', endDate: '2026-01-31' },
  );
  t.strictSame((await queue(a.api, { sn: 'CMD1', command: 'check-attendance' })).body.params, { startDate: null, endDate: null });
});

t.test('every catalog param rule: 422 at body.params.*', async (t) => {
  const { a } = await gateway(t);
  await a.api('POST', '/api/devices', { body: { sn: 'CMD1' } });
  const user = await a.api<UserResponse>('POST', '/api/users', { body: { pin: 501, first_name: 'Enrol' } });
  const enroll = (extra: Json) => ({ pin: 501, user_id: user.body.id, ...extra });
  const cases: [command: string, params: unknown, loc: string][] = [
    ['door-open', { door_id: 5 }, 'body.params.door_id'],
    ['door-open', { door_id: 0 }, 'body.params.door_id'],
    ['door-open', { door_id: '1' }, 'body.params.door_id'],
    ['door-open', { duration: 0 }, 'body.params.duration'],
    ['door-open', { duration: 255 }, 'body.params.duration'],
    ['door-open', { door_id: 1, relay: 2 }, 'body.params.relay'],
    ['enroll-biometric', enroll({ retry: 4 }), 'body.params.retry'],
    ['enroll-biometric', enroll({ retry: 0 }), 'body.params.retry'],
    ['enroll-biometric', enroll({ fid: 10 }), 'body.params.fid'],
    ['enroll-biometric', enroll({ fid: -1 }), 'body.params.fid'],
    ['enroll-biometric', enroll({ type: 'iris' }), 'body.params.type'],
    ['enroll-biometric', enroll({ overwrite: 2 }), 'body.params.overwrite'],
    ['enroll-biometric', { pin: 0, user_id: user.body.id }, 'body.params.pin'],
    ['load-users', { pin: 100_000_000 }, 'body.params.pin'],
    ['check-attendance', { startDate: '2026-1-1' }, 'body.params.startDate'],
    ['check-attendance', { endDate: '01/31/2026' }, 'body.params.endDate'],
    ['check-attendance', { startDate: '2026-02-30' }, 'body.params.startDate'],
    ['firmware-upgrade', { ...FIRMWARE, url: 'http://firmware.example.com/fw.bin' }, 'body.params.url'],
    ['firmware-upgrade', { ...FIRMWARE, url: 'https://host/with space.bin' }, 'body.params.url'],
    ['firmware-upgrade', { ...FIRMWARE, checksum: 'a'.repeat(31) }, 'body.params.checksum'],
    ['firmware-upgrade', { ...FIRMWARE, checksum: 'g'.repeat(32) }, 'body.params.checksum'],
    ['firmware-upgrade', { ...FIRMWARE, size: 0 }, 'body.params.size'],
    ['firmware-upgrade', { url: FIRMWARE.url, checksum: FIRMWARE.checksum }, 'body.params.size'],
    ['shell-command', { command: 'ls\nreboot' }, 'body.params.command'],
    ['shell-command', { command: '' }, 'body.params.command'],
    ['shell-command', {}, 'body.params.command'],
    ['custom', { command: 'C:1:DATA QUERY USERINFO' }, 'body.params.command'],
    ['custom', { command: 'c:99:INFO' }, 'body.params.command'],
    ['custom', { command: 'INFO\r' }, 'body.params.command'],
    ['custom', undefined, 'body.params.command'],
    ['door-open', [1, 2], 'body.params'],
    ['door-open', 'open', 'body.params'],
  ];
  for (const [command, params, loc] of cases) {
    const body = params === undefined ? { sn: 'CMD1', command } : { sn: 'CMD1', command, params };
    const res = await queue(a.api, body);
    const label = `${command} ${JSON.stringify(params)}`;
    t.equal(res.status, 422, `${label}: 422`);
    t.strictSame(locsOf(res.body), [loc], `${label}: ${loc}`);
    t.ok(wellFormedIssues(res.body, 'body'), `${label}: well-formed`);
  }
  for (const duration of [0, 255, -1, 1000]) {
    const res = await queue(a.api, { sn: 'CMD1', command: 'door-open', params: { duration } });
    t.strictSame(
      res.body,
      { detail: [{ loc: ['body', 'params', 'duration'], msg: DURATION_MESSAGE, type: 'value_error' }], code: 'VALIDATION_FAILED' },
      `duration ${duration}: the exact message`,
    );
  }
  const several = await queue(a.api, { sn: 'CMD1', command: 'firmware-upgrade', params: { url: 'ftp://x', checksum: 'x', size: -1 } });
  t.strictSame(locsOf(several.body), ['body.params.checksum', 'body.params.size', 'body.params.url'], 'every param problem at once');

  // Presets without params refuse them.
  for (const command of ['reboot', 'info', 'door-close', 'sync-users', 'clear-data']) {
    const res = await queue(a.api, { sn: 'CMD1', command, params: { door_id: 1 } });
    t.equal(res.status, 422, `${command} with params: 422`);
    t.match(issueAt(res.body, 'body.params'), { msg: `${command} takes no params` });
  }
  const queued = (await a.api<Page<CommandResponse>>('GET', '/api/commands')).body.data;
  t.strictSame(
    queued.map((c) => c.command),
    ['sync-users'],
    "nothing was queued but the user's sync op",
  );
});

t.test('command identifiers: typos, custom in both forms, body fields', async (t) => {
  const { a } = await gateway(t);
  await a.api('POST', '/api/devices', { body: { sn: 'CMD1' } });
  for (const command of ['rebot', 'door-opn', 'sync', 'x', 'reboot-now', '123']) {
    const res = await queue(a.api, { sn: 'CMD1', command });
    t.equal(res.status, 422, `${command}: 422`);
    const issue = issueAt(res.body, 'body.command');
    t.equal(issue?.type, 'enum', `${command}: enum`);
    t.match(
      issue?.msg,
      `unknown command "${command}"; valid commands: reboot, restart, info, check`,
      `${command}: lists the valid commands`,
    );
    t.match(issue?.msg, 'firmware-upgrade, shell-command, custom');
  }

  const asParam = await queue(a.api, { sn: 'CMD1', command: 'custom', params: { command: 'DATA QUERY USERINFO' } });
  t.equal(asParam.status, 201);
  t.match(asParam.body, { command: 'custom', params: { command: 'DATA QUERY USERINFO' } });
  const topLevel = await queue(a.api, { sn: 'CMD1', command: 'DATA QUERY USERINFO' });
  t.equal(topLevel.status, 201, "the sample's form: a raw string in command");
  t.match(topLevel.body, { command: 'custom', params: { command: 'DATA QUERY USERINFO' } });
  const upper = await queue(a.api, { sn: 'CMD1', command: 'REBOOT' });
  t.match(upper.body, { command: 'custom', params: { command: 'REBOOT' } }, 'only lower-case identifiers count as presets');

  const rawCases: [body: Json, loc: string][] = [
    [{ sn: 'CMD1', command: 'DATA QUERY\rUSERINFO' }, 'body.command'],
    [{ sn: 'CMD1', command: 'DATA QUERY USERINFO\n' }, 'body.command'],
    [{ sn: 'CMD1', command: 'DATA\u0000QUERY' }, 'body.command'],
    [{ sn: 'CMD1', command: 'DATA QUERY USERINFO', params: { command: 'INFO' } }, 'body.params'],
    [{ sn: 'CMD1', command: 'C:1:INFO' }, 'body.params.command'],
  ];
  for (const [body, loc] of rawCases) {
    const res = await queue(a.api, body);
    t.equal(res.status, 422, `${JSON.stringify(body)}: 422`);
    t.strictSame(locsOf(res.body), [loc], `${JSON.stringify(body)}: ${loc}`);
  }

  const fields: [body: Json, locs: string[]][] = [
    [{ sn: 'CMD1', command: 'reboot', priority: -1 }, ['body.priority']],
    [{ sn: 'CMD1', command: 'reboot', priority: 101 }, ['body.priority']],
    [{ sn: 'CMD1', command: 'reboot', priority: 'high' }, ['body.priority']],
    [{ sn: 'CMD1', command: 'reboot', priority: 1.5 }, ['body.priority']],
    [{ sn: 'CMD1' }, ['body.command']],
    [{ sn: 'CMD1', command: '' }, ['body.command']],
    [{ sn: 'CMD1', command: 7 }, ['body.command']],
    [{ command: 'reboot' }, ['body.sn']],
    [{ sn: 'bad sn', command: 'reboot' }, ['body.sn']],
    [{ sn: 'CMD1', command: 'reboot', expires_in: 0 }, ['body.expires_in']],
    [{ sn: 'CMD1', command: 'reboot', expires_in: 30 * 86_400 + 1 }, ['body.expires_in']],
    // Every schema issue at once; "sn or target" (issue #36 item 3) is checked once the body fits the schema.
    [{ priority: 500, params: 3 }, ['body.command', 'body.params', 'body.priority']],
  ];
  for (const [body, locs] of fields) {
    const res = await queue(a.api, body);
    t.equal(res.status, 422, `${JSON.stringify(body)}: 422`);
    t.strictSame(locsOf(res.body), locs, `${JSON.stringify(body)}: ${locs.join(', ')}`);
  }
  t.match((await queue(a.api, { sn: 'CMD1', command: 'reboot', priority: 100 })).body, { priority: 100 });
  t.match((await queue(a.api, { sn: 'CMD1', command: 'reboot', priority: 0 })).body, { priority: 0 });

  for (const raw of ['', '{"command":', '[]', '"reboot"']) {
    const res = await a.api<ErrorBody>('POST', '/api/commands', { raw });
    t.equal(res.status, 400, `${JSON.stringify(raw)}: 400`);
    t.equal(
      (await a.api<ErrorBody>('POST', '/api/devices/CMD1/command', { raw })).status,
      400,
      `${JSON.stringify(raw)}: 400 on the device variant`,
    );
  }
});

t.test('device checks: 404 unknown or foreign; COMMAND_NOT_SUPPORTED by known version', async (t) => {
  const clock = fakeClock(START);
  const { a, tenant, started } = await gateway(t, { clock });
  const b = await tenant('Other');
  await b.api('POST', '/api/devices', { body: { sn: 'BDEV' } });
  await a.api('POST', '/api/devices', { body: { sn: 'V2PIN', version: '2.0.0' } });
  await a.api('POST', '/api/devices', { body: { sn: 'UNKNOWNV' } });
  await a.api('POST', '/api/devices', { body: { sn: 'V2SEEN' } });
  await a.api('POST', '/api/devices', { body: { sn: 'V3PIN', version: '3.0.0' } });
  await started.app.store.devices.updateSession('V2SEEN', { version: '2.0.0', last_seen: START }, START);
  await started.app.store.devices.updateSession('V3PIN', { version: '2.0.0', last_seen: START }, START);
  await started.app.store.devices.ensure('UNASSIGNED', START);

  for (const sn of ['NOPE', 'BDEV', 'UNASSIGNED']) {
    const res = await queue(a.api, { sn, command: 'reboot' });
    t.equal(res.status, 404, `${sn}: 404`);
    t.strictSame(res.body, { detail: `Device ${sn} not found`, code: 'DEVICE_NOT_FOUND' });
    const dev = await a.api<ErrorBody>('POST', `/api/devices/${sn}/command`, { body: { command: 'reboot' } });
    t.equal(dev.status, 404, `${sn}: 404 on the device variant`);
    t.equal(dev.body.code, 'DEVICE_NOT_FOUND');
  }

  for (const sn of ['V2PIN', 'V2SEEN']) {
    const res = await queue(a.api, { sn, command: 'door-open' });
    t.equal(res.status, 422, `${sn}: door-open is v3 only`);
    t.strictSame(res.body, {
      detail: 'door-open is not supported on protocol 2.0.0 devices (supported: v3.x)',
      code: 'COMMAND_NOT_SUPPORTED',
    });
    for (const command of ['door-close', 'door-lock', 'normal-open', 'cancel-alarm', 'emergency-on', 'emergency-off']) {
      t.equal((await queue(a.api, { sn, command })).status, 422, `${sn}: ${command} is v3 only`);
    }
    t.equal((await queue(a.api, { sn, command: 'door-unlock' })).status, 201, `${sn}: door-unlock works on v2`);
    t.equal((await queue(a.api, { sn, command: 'clear-alarm' })).status, 201, `${sn}: clear-alarm works on v2`);
  }
  t.equal((await queue(a.api, { sn: 'UNKNOWNV', command: 'door-open' })).status, 201, 'unknown version: accepted');
  t.equal((await queue(a.api, { sn: 'V3PIN', command: 'door-open' })).status, 201, 'the pinned version wins over the detected one');
  t.equal((await a.api('POST', '/api/devices/V2PIN/command', { body: { command: 'door-open' } })).status, 422);
});

t.test('scopes: operator may not queue risky presets, read may not queue at all', async (t) => {
  const { a, started } = await gateway(t);
  await a.api('POST', '/api/devices', { body: { sn: 'CMD1' } });
  const operator = await started.app.locations.issueToken({ location_id: a.id, scope: 'operator' });
  const read = await started.app.locations.issueToken({ location_id: a.id, scope: 'read' });

  for (const command of RISKY) {
    const params = VALID_PARAMS[command];
    const body = params ? { sn: 'CMD1', command, params } : { sn: 'CMD1', command };
    const res = await a.api<ErrorBody>('POST', '/api/commands', { body, token: operator.token });
    t.equal(res.status, 403, `operator: ${command} → 403`);
    t.strictSame(res.body, { detail: `${command} needs a token with the full scope`, code: 'SCOPE_DENIED' });
    const dev = await a.api<ErrorBody>('POST', '/api/devices/CMD1/command', {
      body: params ? { command, params } : { command },
      token: operator.token,
    });
    t.equal(dev.status, 403, `operator: ${command} → 403 on the device variant`);
  }
  t.equal(
    (await a.api<ErrorBody>('POST', '/api/commands', { body: { sn: 'CMD1', command: 'DATA QUERY USERINFO' }, token: operator.token }))
      .status,
    403,
    'the raw custom form too',
  );
  const reboot = await a.api<CommandResponse>('POST', '/api/commands', { body: { sn: 'CMD1', command: 'reboot' }, token: operator.token });
  t.equal(reboot.status, 201, 'operator: reboot is fine');
  t.equal(reboot.body.created_by_token_id, operator.id, 'the queueing token is recorded');
  t.equal((await a.api('POST', '/api/commands', { body: { sn: 'CMD1', command: 'door-open' }, token: operator.token })).status, 201);
  t.equal(
    (await a.api('POST', '/api/users', { body: { pin: 1, first_name: 'Op' }, token: operator.token })).status,
    201,
    'operator may write users',
  );

  for (const [method, path, body] of [
    ['POST', '/api/commands', { sn: 'CMD1', command: 'reboot' }],
    ['POST', '/api/devices/CMD1/command', { command: 'reboot' }],
    ['DELETE', `/api/commands/${reboot.body.id}`, undefined],
    ['POST', '/api/users', { pin: 2, first_name: 'R' }],
    ['POST', '/api/devices', { sn: 'CMD2' }],
  ] as const) {
    const res = await a.api<ErrorBody>(method, path, { ...(body ? { body } : {}), token: read.token });
    t.equal(res.status, 403, `read: ${method} ${path} → 403`);
    t.strictSame(res.body, { detail: 'This token has the read scope: only GET is allowed', code: 'SCOPE_DENIED' });
  }
  t.equal((await a.api('GET', '/api/commands', { token: read.token })).status, 200, 'read: GET works');
  t.equal((await a.api('GET', `/api/commands/${reboot.body.id}`, { token: read.token })).status, 200);
  t.match(
    (await a.api<CommandResponse>('GET', `/api/commands/${reboot.body.id}`)).body,
    { status: 'pending' },
    'the read token cancelled nothing',
  );

  for (const command of RISKY) {
    const params = VALID_PARAMS[command];
    t.equal(
      (await a.api('POST', '/api/commands', { body: params ? { sn: 'CMD1', command, params } : { sn: 'CMD1', command } })).status,
      201,
      `full: ${command} → 201`,
    );
  }
});

t.test('Idempotency-Key: replay, reuse with another body, per token, concurrency', async (t) => {
  const { a, started } = await gateway(t);
  await a.api('POST', '/api/devices', { body: { sn: 'CMD1' } });
  await a.api('POST', '/api/devices', { body: { sn: 'CMD2' } });
  const key = { 'idempotency-key': 'order-4711' };
  const first = await queue(a.api, { sn: 'CMD1', command: 'door-open', params: { door_id: 2 } }, key);
  t.equal(first.status, 201);
  const replay = await queue(a.api, { sn: 'CMD1', command: 'door-open', params: { door_id: 2 } }, key);
  t.equal(replay.status, 201);
  t.strictSame(replay.body, first.body, 'the first response again');
  const withDefaults = await queue(a.api, { sn: 'CMD1', command: 'door-open', params: { door_id: 2, duration: 5 } }, key);
  t.equal(withDefaults.body.id, first.body.id, 'the same request once defaults are applied');
  t.equal((await a.api<Page<CommandResponse>>('GET', '/api/commands')).body.total, 1, 'one record');

  const reused: Json[] = [
    { sn: 'CMD1', command: 'door-open', params: { door_id: 3 } },
    { sn: 'CMD2', command: 'door-open', params: { door_id: 2 } },
    { sn: 'CMD1', command: 'door-open', params: { door_id: 2 }, priority: 9 },
    { sn: 'CMD1', command: 'reboot' },
  ];
  for (const body of reused) {
    const res = await a.api<ErrorBody>('POST', '/api/commands', { body, headers: key });
    t.equal(res.status, 422, `${JSON.stringify(body)}: 422`);
    t.strictSame(res.body, { detail: 'This Idempotency-Key was used with a different request', code: 'IDEMPOTENCY_KEY_REUSED' });
  }
  const viaDevice = await a.api<CommandResponse>('POST', '/api/devices/CMD1/command', {
    body: { command: 'door-open', params: { door_id: 2 } },
    headers: key,
  });
  t.equal(viaDevice.body.id, first.body.id, 'the device variant shares the key space');

  const otherToken = await started.app.locations.issueToken({ location_id: a.id });
  const mine = await a.api<CommandResponse>('POST', '/api/commands', {
    body: { sn: 'CMD1', command: 'reboot' },
    headers: key,
    token: otherToken.token,
  });
  t.equal(mine.status, 201, 'another token has its own keys');
  t.not(mine.body.id, first.body.id);
  t.equal((await a.api<Page<CommandResponse>>('GET', '/api/commands')).body.total, 2);

  for (const bad of ['has space', 'x'.repeat(129), 'tab\there']) {
    const res = await a.api<ErrorBody>('POST', '/api/commands', {
      body: { sn: 'CMD1', command: 'reboot' },
      headers: { 'idempotency-key': bad },
    });
    t.equal(res.status, 422, `key ${JSON.stringify(bad.slice(0, 10))}: 422`);
    t.equal(res.body.code, 'VALIDATION_FAILED');
  }

  // Retries racing each other: one record, every answer the same command.
  const racing = await Promise.all(
    Array.from({ length: 8 }, () => queue(a.api, { sn: 'CMD2', command: 'info' }, { 'idempotency-key': 'race-1' })),
  );
  t.strictSame(
    racing.map((r) => r.status),
    Array(8).fill(201),
    'every concurrent retry: 201',
  );
  t.equal(new Set(racing.map((r) => r.body.id)).size, 1, 'one command id');
  t.equal((await a.api<Page<CommandResponse>>('GET', '/api/commands?sn=CMD2')).body.total, 1, 'one record');
});

t.test('GET /api/commands/{id}, GET /api/commands (filters, order, pages), DELETE (cancel)', async (t) => {
  const clock = fakeClock(START);
  const { a, tenant, started } = await gateway(t, { clock });
  const b = await tenant('Other');
  await a.api('POST', '/api/devices', { body: { sn: 'CMD1' } });
  await a.api('POST', '/api/devices', { body: { sn: 'CMD2' } });
  await b.api('POST', '/api/devices', { body: { sn: 'BDEV' } });
  const bCmd = await queue(b.api, { sn: 'BDEV', command: 'reboot' });

  const ids: number[] = [];
  const plan: [sn: string, command: string][] = [
    ['CMD1', 'reboot'],
    ['CMD1', 'info'],
    ['CMD2', 'reboot'],
    ['CMD2', 'check'],
    ['CMD1', 'restart'],
  ];
  for (const [sn, command] of plan) {
    clock.advance(1000);
    ids.push((await queue(a.api, { sn, command })).body.id);
  }
  const list = async (query: string) => (await a.api<Page<CommandResponse>>('GET', `/api/commands${query}`)).body;
  const all = await list('');
  t.equal(all.total, 5, "only this location's commands");
  t.strictSame(
    all.data.map((c) => c.id),
    [...ids].reverse(),
    'newest first',
  );
  for (const c of all.data) t.strictSame(keysOf(c), sorted(COMMAND_KEYS));
  t.strictSame(
    (await list('?sn=CMD2')).data.map((c) => c.id),
    [ids[3], ids[2]],
  );
  t.strictSame(
    (await list('?command=reboot')).data.map((c) => c.id),
    [ids[4], ids[2], ids[0]],
  );
  t.strictSame(
    (await list('?command=restart')).data.map((c) => c.id),
    [ids[4], ids[2], ids[0]],
    'the alias filters as reboot',
  );
  t.strictSame(
    (await list('?sn=CMD1&command=reboot')).data.map((c) => c.id),
    [ids[4], ids[0]],
  );
  t.strictSame(
    (await list('?since=2026-03-01T08:00:03.000Z')).data.map((c) => c.id),
    [ids[4], ids[3], ids[2]],
    'created at or after since',
  );
  t.strictSame(
    (await list('?since=2026-03-01T09:00:03%2B01:00')).data.map((c) => c.id),
    [ids[4], ids[3], ids[2]],
    'since with an offset',
  );
  t.strictSame((await list('?since=2026-03-01T08:00:06Z')).data, []);
  t.strictSame((await list('?sn=BDEV')).data, [], "another location's device: nothing");
  const paged = await list('?limit=2&page=3');
  t.match(paged, { total: 5, page: 3, limit: 2, total_pages: 3, has_next: false, has_prev: true });
  t.strictSame(
    paged.data.map((c) => c.id),
    [ids[0]],
  );
  t.match(await list('?limit=2'), { total_pages: 3, has_next: true, has_prev: false });

  for (const [query, loc] of [
    ['?since=yesterday', 'query.since'],
    ['?since=2026-13-01T00:00:00Z', 'query.since'],
    ['?since=2026-03-01', 'query.since'],
    ['?since=2026-02-30T00:00:00Z', 'query.since'],
    ['?status=done', 'query.status'],
    ['?limit=0', 'query.limit'],
    ['?page=0', 'query.page'],
    ['?limit=101', 'query.limit'],
    ['?page=614891469123651721', 'query.page'],
  ]) {
    const res = await a.api<ErrorBody>('GET', `/api/commands${query}`);
    t.equal(res.status, 422, `${query}: 422`);
    t.strictSame(locsOf(res.body), [loc], `${query}: ${loc}`);
  }

  // Reading one.
  t.equal((await a.api('GET', `/api/commands/${ids[0]}`)).status, 200);
  for (const id of [bCmd.body.id, 999_999]) {
    const res = await a.api<ErrorBody>('GET', `/api/commands/${id}`);
    t.equal(res.status, 404, `${id}: 404`);
    t.strictSame(res.body, { detail: `Command ${id} not found`, code: 'COMMAND_NOT_FOUND' });
  }
  for (const id of ['x', '0', '-3', '1.5', '9007199254740993', '100000000000000000000']) {
    const res = await a.api<ErrorBody>('GET', `/api/commands/${id}`);
    t.equal(res.status, 422, `${id}: 422`);
    t.strictSame(locsOf(res.body), ['path.command_id']);
  }

  // Cancelling.
  clock.advance(1000);
  const cancelled = await a.api<CommandResponse>('DELETE', `/api/commands/${ids[1]}`);
  t.equal(cancelled.status, 200);
  t.strictSame(keysOf(cancelled.body), sorted(COMMAND_KEYS));
  t.match(cancelled.body, {
    id: ids[1],
    status: 'failed',
    error_message: 'cancelled',
    is_active: false,
    updated_at: '2026-03-01T08:00:06.000Z',
  });
  t.strictSame((await a.api('GET', `/api/commands/${ids[1]}`)).body, cancelled.body);
  const twice = await a.api<ErrorBody>('DELETE', `/api/commands/${ids[1]}`);
  t.equal(twice.status, 409);
  t.strictSame(twice.body, { detail: `Command ${ids[1]} is failed and can no longer be cancelled`, code: 'COMMAND_ALREADY_SENT' });

  await started.app.store.commands.claim([ids[0] ?? 0], new Map(), clock.now().toISOString());
  const sent = await a.api<ErrorBody>('DELETE', `/api/commands/${ids[0]}`);
  t.equal(sent.status, 409, 'a sent command cannot be cancelled');
  t.equal(sent.body.code, 'COMMAND_ALREADY_SENT');

  const foreign = await a.api<ErrorBody>('DELETE', `/api/commands/${bCmd.body.id}`);
  t.equal(foreign.status, 404, "another location's command: 404");
  t.match((await b.api<CommandResponse>('GET', `/api/commands/${bCmd.body.id}`)).body, { status: 'pending' }, 'and it stays pending');
  t.equal((await a.api('DELETE', '/api/commands/x')).status, 422);
  t.strictSame(
    (await list('?status=failed')).data.map((c) => c.id),
    [ids[1]],
  );
  t.strictSame(
    (await list('?status=sent')).data.map((c) => c.id),
    [ids[0]],
  );
  t.strictSame(
    (await list('?status=pending')).data.map((c) => c.id),
    [ids[4], ids[3], ids[2]],
  );
});

t.test('mailbox bound: 429 MAILBOX_FULL once a device holds mailboxLimit pending commands', async (t) => {
  const { a } = await gateway(t, { config: { mailboxLimit: 3 } });
  // Background sync ops do not take API mailbox room: five users queue five ops on assignment.
  await a.api('POST', '/api/users/import', { body: [1, 2, 3, 4, 5].map((pin) => ({ pin, first_name: 'U' })) });
  await a.api('POST', '/api/devices', { body: { sn: 'FULL1' } });
  t.equal((await a.api<Page<CommandResponse>>('GET', '/api/commands?sn=FULL1&command=sync-users&status=pending')).body.total, 5);
  await a.api('POST', '/api/devices', { body: { sn: 'FREE1' } });
  const ids: number[] = [];
  for (let i = 0; i < 3; i++) {
    const r = await queue(a.api, { sn: 'FULL1', command: 'reboot' }, { 'idempotency-key': `k${i}` });
    t.equal(r.status, 201, `command ${i + 1}: 201`);
    ids.push(r.body.id);
  }
  const fourth = await queue(a.api, { sn: 'FULL1', command: 'reboot' });
  t.equal(fourth.status, 429, 'the 4th: 429');
  t.strictSame(fourth.body, { detail: 'Device FULL1 has 3 pending commands; retry when it has drained', code: 'MAILBOX_FULL' });
  t.equal(fourth.headers.get('retry-after'), '30');
  t.equal((await a.api('POST', '/api/devices/FULL1/command', { body: { command: 'info' } })).status, 429, 'the device variant too');
  t.equal(
    (await queue(a.api, { sn: 'FULL1', command: 'reboot' }, { 'idempotency-key': 'k1' })).status,
    201,
    'a replay is not a new command',
  );
  t.equal((await queue(a.api, { sn: 'FREE1', command: 'reboot' })).status, 201, 'other devices have their own mailbox');
  t.equal((await a.api('DELETE', `/api/commands/${ids[0]}`)).status, 200);
  t.equal((await queue(a.api, { sn: 'FULL1', command: 'reboot' })).status, 201, 'room again after a cancel');
  t.equal((await a.api<Page<CommandResponse>>('GET', '/api/commands?sn=FULL1&status=pending&command=reboot')).body.total, 3);
});

t.test('expiry: expires_in, and the default per preset', async (t) => {
  const clock = fakeClock(START);
  const { a, started } = await gateway(t, { clock });
  await a.api('POST', '/api/devices', { body: { sn: 'EXP1' } });
  const user = await a.api<UserResponse>('POST', '/api/users', { body: { pin: 1, first_name: 'E' } });
  const seconds = (c: CommandResponse) => (Date.parse(c.expires_at ?? '') - Date.parse(c.created_at)) / 1000;

  const given = await queue(a.api, { sn: 'EXP1', command: 'reboot', expires_in: 120 });
  t.equal(given.body.expires_at, '2026-03-01T08:02:00.000Z', 'expires_in seconds after creation');
  t.equal(
    seconds((await queue(a.api, { sn: 'EXP1', command: 'door-open', expires_in: 1 })).body),
    1,
    'expires_in wins over a door default',
  );
  t.equal(seconds((await queue(a.api, { sn: 'EXP1', command: 'info', expires_in: 30 * 86_400 })).body), 30 * 86_400, 'up to 30 days');

  const params: Record<string, Json> = {
    ...VALID_PARAMS,
    'enroll-biometric': { pin: 1, user_id: user.body.id },
  };
  const catalog = [
    'reboot',
    'info',
    'check',
    'reload-options',
    ...DOOR_PRESETS,
    'load-users',
    'enroll-biometric',
    'check-attendance',
    'clear-log',
    'clear-photo',
    'clear-biodata',
    'clear-data',
    'firmware-upgrade',
    'shell-command',
    'custom',
  ];
  for (const command of catalog) {
    clock.advance(1000);
    const p = params[command];
    const res = await queue(a.api, p ? { sn: 'EXP1', command, params: p } : { sn: 'EXP1', command });
    t.equal(res.status, 201, `${command}: 201`);
    t.equal(
      seconds(res.body),
      DOOR_PRESETS.includes(command) ? 60 : 86_400,
      `${command}: default expiry ${DOOR_PRESETS.includes(command) ? '60 s' : '1 day'}`,
    );
  }
  // A pending door command past its expiry fails instead of opening the door late.
  const door = await queue(a.api, { sn: 'EXP1', command: 'door-unlock' });
  clock.advance(60_000);
  const expired = await started.app.store.commands.expire(clock.now().toISOString());
  t.ok(
    expired.some((c) => c.id === door.body.id),
    'the door command expired after 60 s',
  );
  t.match((await a.api<CommandResponse>('GET', `/api/commands/${door.body.id}`)).body, {
    status: 'failed',
    error_message: 'expired before delivery',
  });
});

t.test('sync-users: 201 pending (not success before any terminal got anything); cancellable while nothing was delivered', async (t) => {
  const clock = fakeClock(START);
  const { a, started } = await gateway(t, { clock });
  await a.api('POST', '/api/users/import', {
    body: [
      { pin: 1, first_name: 'A' },
      { pin: 2, first_name: 'B' },
      { pin: 3, first_name: 'Off', is_active: false },
    ],
  });
  await started.app.outbox.idle(); // the import's background fan-out, before the device exists
  await a.api('POST', '/api/devices', { body: { sn: 'SYNC1' } });
  clock.advance(1000);
  const res = await queue(a.api, { sn: 'SYNC1', command: 'sync-users' });
  t.equal(res.status, 201);
  t.strictSame(keysOf(res.body), sorted(COMMAND_KEYS));
  t.match(res.body, {
    command: 'sync-users',
    status: 'pending',
    result: { queued: 3, load_users_id: Number },
    response: null,
    error_message: null,
    is_active: true,
    params: null,
    sent_at: null,
  });
  t.strictSame((await a.api('GET', `/api/commands/${res.body.id}`)).body, res.body);
  const ops = await a.api<Page<CommandResponse>>('GET', '/api/commands?command=sync-users&status=pending');
  t.equal(ops.body.total, 3, 'the record and its two roster ops (refreshed, not stacked)');
  const cancelled = await a.api<CommandResponse>('DELETE', `/api/commands/${res.body.id}`);
  t.match(cancelled, { status: 200, body: { status: 'failed', error_message: 'cancelled' } }, 'nothing delivered yet: cancellable');
  t.equal(
    (await a.api<Page<CommandResponse>>('GET', '/api/commands?status=pending')).body.total,
    0,
    'its ops and audit are cancelled with it',
  );
  t.equal((await a.api('DELETE', `/api/commands/${res.body.id}`)).status, 409, 'a finished command cannot be cancelled');

  const empty = await gateway(t);
  await empty.a.api('POST', '/api/devices', { body: { sn: 'SYNC2' } });
  t.match(
    (await queue(empty.a.api, { sn: 'SYNC2', command: 'sync-users' })).body,
    { status: 'pending', result: { queued: 1 } },
    'no users: only the load-users audit',
  );
});
